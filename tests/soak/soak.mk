# tests/soak/soak.mk - make soak (tests/soak/soak.sh; not in CI).
#   make soak SOAK_TASKS=N SOAK_OMP_REGIONS=M   (defaults 10^9 and 10^6)

SOAK_TASKS ?= 1000000000
SOAK_OMP_REGIONS ?= 1000000

$(O)/soak/soak: $(O)/tests/soak/soak.o $(O)/libxsched.a
	@mkdir -p $(@D)
	$(call cmd,fuzz_link)
all-objs += $(O)/tests/soak/soak.o

.PHONY: soak
soak: $(O)/soak/soak lib daemon
	$(Q)SOAK_TASKS=$(SOAK_TASKS) SOAK_OMP_REGIONS=$(SOAK_OMP_REGIONS) tests/soak/soak.sh $(O)
