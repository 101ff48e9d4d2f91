/* SPDX-License-Identifier: MIT */
/*
 * depend.c - task dependences: in/out/inout chains, fan-out/fan-in, a
 * blocked 2-D wavefront, mutexinoutset, taskwait depend, if(0) with depend,
 * iterators over many addresses, array sections and depobj.
 */
#include <omp.h>
#include <string.h>

#include "omp-check.h"

static void spin(int n)
{
	for (volatile int i = 0; i < n; i++)
		;
}

/* Writers (out, inout) and readers (in) on one variable: every reader sees
 * the value of the writer before it, every writer the one before it. */
static void chain(void)
{
	enum { N = 600 };
	static long reads[N];
	long x = -1, serial = -1;

#pragma omp parallel
#pragma omp single
	for (int k = 0; k < N; k++) {
		switch (k % 5) {
		case 0:
#pragma omp task depend(out : x) firstprivate(k) shared(x)
			{
				spin(200);
				x = k;
			}
			break;
		case 1:
		case 2:
#pragma omp task depend(in : x) firstprivate(k) shared(x)
			{
				spin(300);
				reads[k] = x;
			}
			break;
		default:
#pragma omp task depend(inout : x) firstprivate(k) shared(x)
			x = (x * 3 + k) % 1000003;
		}
	}
	for (int k = 0; k < N; k++) {
		switch (k % 5) {
		case 0:
			serial = k;
			break;
		case 1:
		case 2:
			CHECK("depend.chain.read", reads[k] == serial);
			break;
		default:
			serial = (serial * 3 + k) % 1000003;
		}
	}
	CHECK("depend.chain.final", x == serial);
	printf("depend.chain checksum %ld\n", x);
	OK("depend.chain");
}

static void fan(void)
{
	enum { W = 64 };
	long a = 0, b[W], total = 0, few = 0;

	memset(b, 0, sizeof b);
#pragma omp parallel
#pragma omp single
	{
		for (int r = 1; r <= 20; r++) {
#pragma omp task depend(out : a) shared(a) firstprivate(r)
			{
				spin(1000);
				a = 7 * r;
			}
			for (int i = 0; i < W; i++) {
#pragma omp task depend(in : a) depend(out : b[i]) shared(a, b) firstprivate(i)
				{
					spin(100 * (i % 5));
					b[i] = a * i + 1;
				}
			}
			/* fan-in over 64 addresses through an iterator */
#pragma omp task depend(iterator(j = 0 : W), in : b[j]) depend(inout : total) shared(b, total)
			{
				for (int j = 0; j < W; j++)
					total += b[j];
			}
			/* fan-in over a few explicit addresses */
#pragma omp task depend(in : b[0], b[1], b[5], b[W - 1]) depend(inout : few) shared(b, few)
			few += b[0] + b[1] + b[5] + b[W - 1];
		}
	}
	long want = 0, want_few = 0;

	for (int r = 1; r <= 20; r++) {
		for (int i = 0; i < W; i++)
			want += 7L * r * i + 1;
		want_few += 4 + 7L * r * (0 + 1 + 5 + W - 1);
	}
	CHECK("depend.fan-in-iterator", total == want);
	CHECK("depend.fan-in-list", few == want_few);
	printf("depend.fan checksum %ld %ld\n", total, few);
	OK("depend.fan-out-fan-in");
}

enum { NB = 12, BS = 16, G = NB * BS };

static unsigned grid[G + 1][G + 1], serial_grid[G + 1][G + 1];

static unsigned cell(unsigned (*g)[G + 1], int i, int j)
{
	return (g[i - 1][j] + 2 * g[i][j - 1] + g[i - 1][j - 1] + (unsigned)i * j) % 1000003;
}

static void block(unsigned (*g)[G + 1], int bi, int bj)
{
	for (int i = bi * BS + 1; i <= (bi + 1) * BS; i++)
		for (int j = bj * BS + 1; j <= (bj + 1) * BS; j++)
			g[i][j] = cell(g, i, j);
}

static void wavefront(void)
{
	/* tok[bi + 1][bj + 1] stands for block (bi, bj); row and column 0 are
	 * never written, so the first row and column depend on nothing real. */
	static char tok[NB + 1][NB + 1];

	(void)tok;	/* only its addresses are used */

	for (int k = 0; k <= G; k++) {
		grid[0][k] = grid[k][0] = serial_grid[0][k] = serial_grid[k][0] = k * 13 + 1;
	}
#pragma omp parallel
#pragma omp single
	for (int bi = 0; bi < NB; bi++)
		for (int bj = 0; bj < NB; bj++) {
#pragma omp task firstprivate(bi, bj) depend(in : tok[bi][bj + 1], tok[bi + 1][bj]) depend(inout : tok[bi + 1][bj + 1])
			block(grid, bi, bj);
		}
	for (int bi = 0; bi < NB; bi++)
		for (int bj = 0; bj < NB; bj++)
			block(serial_grid, bi, bj);
	unsigned long long sum = 0;

	for (int i = 0; i <= G; i++)
		for (int j = 0; j <= G; j++) {
			CHECK("depend.wavefront", grid[i][j] == serial_grid[i][j]);
			sum = sum * 31 + grid[i][j];
		}
	printf("depend.wavefront checksum %llu\n", sum);
	OK("depend.wavefront");
}

static volatile long acc, acc_first_read, acc_final;
static volatile int acc_inside, acc_overlap, acc_saw_writer;

static void mutexinoutset(void)
{
	enum { M = 64 };

	acc = 0, acc_inside = 0, acc_overlap = 0, acc_saw_writer = 0;
#pragma omp parallel
#pragma omp single
	{
#pragma omp task depend(out : acc)
		{
			spin(20000);
			acc = 1000;
		}
#pragma omp task depend(in : acc)
		{
			spin(20000);
			acc_first_read = acc;
		}
		for (int k = 1; k <= M; k++) {
#pragma omp task depend(mutexinoutset : acc) firstprivate(k)
			{
				int in;
#pragma omp atomic capture
				in = ++acc_inside;
				if (in != 1)
					acc_overlap = 1;
				long v = acc;	/* non-atomic read-modify-write */

				if (v >= 1000)
					acc_saw_writer++;
				spin(500);
				acc = v + k;
#pragma omp atomic
				acc_inside--;
			}
		}
#pragma omp task depend(in : acc)
		acc_final = acc;
	}
	CHECK("depend.mutexinoutset.after-out-and-in", acc_first_read == 1000);
	CHECK("depend.mutexinoutset.saw-writer", acc_saw_writer == M);
	CHECK("depend.mutexinoutset.exclusive", acc_overlap == 0);
	CHECK("depend.mutexinoutset.total", acc == 1000 + M * (M + 1) / 2);
	CHECK("depend.mutexinoutset.before-in", acc_final == 1000 + M * (M + 1) / 2);
	OK("depend.mutexinoutset");
}

static void taskwait_depend_and_if0(void)
{
	int bad = 0;

#pragma omp parallel
#pragma omp single
	for (int r = 0; r < 50; r++) {
		long p = 0, q = 0, seen = -1;

#pragma omp task depend(out : p) shared(p) firstprivate(r)
		{
			spin(3000);
			p = r + 5;
		}
#pragma omp task depend(out : q) shared(q) firstprivate(r)
		{
			spin(6000);
			q = r + 6;
		}
		/* GOMP_taskwait_depend: waits for the writer of p only */
#pragma omp taskwait depend(in : p)
		if (p != r + 5)
			bad++;

		/* an undeferred task still waits for its dependences */
#pragma omp task if (0) depend(in : q) shared(q, seen)
		seen = q;
		if (seen != r + 6)
			bad += 100;
#pragma omp taskwait
	}
	CHECK("depend.taskwait-depend", bad % 100 == 0);
	OK("depend.taskwait-depend");
	CHECK("depend.if(0)-depend", bad == 0);
	OK("depend.if(0)-depend");
}

/*
 * An undeferred task waits for a detached writer whose event is already
 * fulfilled but whose body has not run: at one thread every other task
 * here runs at once, and an undeferred task only reads the parent's
 * dependence table (an address no sibling named has no slot: y).
 */
static void if0_after_detached_writer(void)
{
	int bad = 0;

#pragma omp parallel reduction(+ : bad)
#pragma omp single
	for (int r = 0; r < 50; r++) {
		omp_event_handle_t ev;
		long x = 0, y = 0, seen = -1;

#pragma omp task detach(ev) depend(out : x) shared(x) firstprivate(r)
		x = r + 7;
		omp_fulfill_event(ev);
#pragma omp task if (0) depend(in : x) depend(inout : y) shared(x, y, seen)
		{
			seen = x;
			y = 1;
		}
		bad += seen != r + 7 || y != 1;
#pragma omp taskwait
	}
	CHECK("depend.if(0)-after-detached-writer", bad == 0);
	OK("depend.if(0)-after-detached-writer");
}

static void sections_and_many(void)
{
	enum { A = 256, S = 128 };
	static long arr[A], sec[S];
	long sum = -1;

	memset(sec, 0, sizeof sec);
#pragma omp parallel
#pragma omp single
	{
		for (int i = 0; i < A; i++) {
#pragma omp task depend(out : arr[i]) firstprivate(i)
			{
				spin(100 * (i % 3));
				arr[i] = (long)i * i;
			}
		}
#pragma omp task depend(iterator(i = 0 : A), in : arr[i]) shared(sum)
		{
			long s = 0;
			for (int i = 0; i < A; i++)
				s += arr[i];
			sum = s;
		}

		/* The same array section in every clause: a chain on sec. */
		for (int k = 0; k < 100; k++) {
#pragma omp task depend(inout : sec[0 : S]) firstprivate(k)
			for (int i = 0; i < S; i++)
				sec[i] = (sec[i] * 5 + k + i) % 65521;
		}
	}
	long want = 0;

	for (long i = 0; i < A; i++)
		want += i * i;
	CHECK("depend.many-addresses", sum == want);
	OK("depend.many-addresses");

	static long ref[S];

	memset(ref, 0, sizeof ref);
	for (int k = 0; k < 100; k++)
		for (int i = 0; i < S; i++)
			ref[i] = (ref[i] * 5 + k + i) % 65521;
	for (int i = 0; i < S; i++)
		CHECK("depend.array-section", sec[i] == ref[i]);
	OK("depend.array-section");
}

static void depobj(void)
{
	long y = 1, z = 2;
	omp_depend_t oy, oz;

#pragma omp depobj(oy) depend(inout : y)
#pragma omp depobj(oz) depend(in : z)
#pragma omp parallel
#pragma omp single
	{
		for (int k = 0; k < 40; k++) {
#pragma omp task depend(depobj : oy) depend(depobj : oz) shared(y, z) firstprivate(k)
			{
				spin(100);
				y = (y * 3 + z + k) % 1000003;
			}
		}
	}
#pragma omp depobj(oy) destroy
#pragma omp depobj(oz) destroy
	long want = 1;

	for (int k = 0; k < 40; k++)
		want = (want * 3 + 2 + k) % 1000003;
	CHECK("depend.depobj", y == want);
	OK("depend.depobj");
}

int main(void)
{
	chain();
	fan();
	wavefront();
	mutexinoutset();
	taskwait_depend_and_if0();
	if0_after_detached_writer();
	sections_and_many();
	depobj();
	return 0;
}
