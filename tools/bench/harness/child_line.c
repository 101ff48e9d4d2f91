// SPDX-License-Identifier: MIT
/*
 * child_line.c - a child's result line, read with tools/common/json.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "child_line.h"
#include "../../common/json.h"

/* The numbers a line may carry, by name. */
static double *child_number(struct child_line *c, const char *key, unsigned int *bit)
{
	static const struct {
		const char *key;
		size_t off;
		unsigned int bit;
	} nums[] = {
		{ "time_s", offsetof(struct child_line, time_s), CHILD_TIME },
		{ "nodes", offsetof(struct child_line, nodes), CHILD_NODES },
		{ "warmup", offsetof(struct child_line, warmup), CHILD_WARMUP },
		{ "iters", offsetof(struct child_line, iters), CHILD_ITERS },
		{ "start_s", offsetof(struct child_line, start_s), CHILD_START },
		{ "end_s", offsetof(struct child_line, end_s), CHILD_END },
	};

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (!strcmp(key, nums[i].key)) {
			*bit = nums[i].bit;
			return (double *)(void *)((char *)c + nums[i].off);
		}
	return NULL;
}

int child_line_parse(const char *line, struct child_line *c)
{
	struct json j;
	char key[32], sum[32];
	unsigned int bit;
	double *num;
	size_t at;
	int more;

	memset(c, 0, sizeof(*c));
	json_init(&j, line, strlen(line));
	if (json_object_begin(&j, "a result", "an empty result", &at))
		return -1;
	do {
		if (json_key(&j, key, sizeof(key)))
			return -1;
		if (!strcmp(key, "lib") || !strcmp(key, "stray")) {
			bool lib = key[0] == 'l';

			if (json_string(&j, lib ? c->lib : c->stray,
					lib ? sizeof(c->lib) : sizeof(c->stray)))
				return -1;
			c->has |= lib ? CHILD_LIB : CHILD_STRAY;
		} else if (!strcmp(key, "checksum")) {
			char *end;

			if (json_string(&j, sum, sizeof(sum)))
				return -1;
			c->checksum = strtoull(sum, &end, 16);
			if (end == sum || *end)
				return -1;
			c->has |= CHILD_CHECKSUM;
		} else if (!strcmp(key, "ready")) {
			if (json_skip(&j))
				return -1;
			c->has |= CHILD_READY;
		} else if ((num = child_number(c, key, &bit))) {
			if (json_number(&j, num))
				return -1;
			c->has |= bit;
		} else if (json_skip(&j)) {
			return -1;
		}
	} while ((more = json_next(&j, '}')) == 1);
	return more < 0 || json_end(&j) ? -1 : 0;
}
