# pipeline.mk: dirigo's five stages as GNU make rules (dirigo(7)), so that
# a rerun after a change to one input redoes only what depends on it:
#
#	ref.cu -> ref -> ref.trace \
#	                            pair.obl -> pair.sym -> pair.ver -> pair.rep
#	opt.cu -> opt -> opt.trace /  dmerge     dexec      dcheck     dreplay
#
#	make -f pipeline.mk [REF=ref.cu] [OPT=opt.cu]	# the report: pair.txt
#	make -f pipeline.mk verdict			# prints it and the status
#
# make itself exits 0 when every stage ran (whatever it found) and 2 on
# trouble; the pipeline's own exit status (0 correct, 1 bug, 3 undecided)
# is in pair.rep.status, so a script that wants it runs
#	make -f pipeline.mk && exit $(cat pair.rep.status)
#
# dexec keeps each launch's records in $(CACHE) (dexec --cache), so after a
# change to the reference alone the optimized program's launches come from
# the cache; its log (pair.sym.log) says which.  A stage that finds a bug
# (exit 1) or cannot decide (exit 3) still makes its file; trouble (exit 2)
# stops make and removes that stage's file, so nothing stale is left that
# looks like the result of the new input.  Every file is written under a
# temporary name and renamed, so an interrupted run never leaves a file
# that looks complete.

REF   ?= ref.cu
OPT   ?= opt.cu
CACHE ?= dexec-cache

DTRACE_FLAGS  ?= --no-gpu
DMERGE_FLAGS  ?=
DEXEC_FLAGS   ?= -v
DCHECK_FLAGS  ?=
DREPLAY_FLAGS ?=

# build_cuda SRC OUT: a program the record-only runtime can trace
# (dynamically linked cudart, PTX in the fatbinary, .loc lines).
NVCC ?= nvcc
build_cuda ?= $(NVCC) -cudart shared -O2 -lineinfo -o $(2) $(1)

# stage STATUS-FILE, COMMAND: runs COMMAND (its output to $@.tmp), keeps
# the output when it exits 0, 1 or 3 and records the status; on any other
# status removes the output, the old target and its status file.
stage = { $(2); } >$@.tmp; st=$$?; \
	if [ $$st -eq 0 ] || [ $$st -eq 1 ] || [ $$st -eq 3 ]; then \
		echo $$st >$(1) && mv $@.tmp $@; \
	else rm -f $@.tmp $@ $(1); echo "$@: exit $$st" >&2; exit 2; fi

all: pair.rep

# ref.src and opt.src name the sources last built, rewritten only when
# REF or OPT names another file, so that "make OPT=opt-fixed.cu" rebuilds
# the optimized program (a newer file is not needed) and nothing else.
remember = $(shell [ "$$(cat $(1) 2>/dev/null)" = "$(2)" ] || echo "$(2)" >$(1))
$(call remember,ref.src,$(REF))
$(call remember,opt.src,$(OPT))

ref: $(REF) ref.src
	$(call build_cuda,$<,$@)

opt: $(OPT) opt.src
	$(call build_cuda,$<,$@)

%.trace: %
	dtrace-cuda $(DTRACE_FLAGS) --name $* -o $@.tmp -- ./$< 2>$@.log && mv $@.tmp $@ || \
		{ rm -f $@.tmp $@; echo "$@: dtrace-cuda failed, see $@.log" >&2; exit 2; }

pair.obl: ref.trace opt.trace
	@$(call stage,pair.obl.status,dmerge $(DMERGE_FLAGS) ref.trace opt.trace 2>pair.obl.log)

pair.sym: pair.obl
	@$(call stage,pair.sym.status,dexec $(DEXEC_FLAGS) --cache $(CACHE) $< 2>pair.sym.log)

pair.ver: pair.sym
	@$(call stage,pair.ver.status,dcheck $(DCHECK_FLAGS) $< 2>pair.ver.log)

pair.rep: pair.ver
	@rm -f pair.txt; $(call stage,pair.rep.status,dreplay $(DREPLAY_FLAGS) --report pair.txt $< 2>pair.rep.log)

# The report and the pipeline's status, the last stage's: 0 correct,
# 1 bug, 3 undecided.
verdict: pair.rep
	@cat pair.txt; echo "status: $$(cat pair.rep.status)"

# The dexec cache survives clean: it is keyed by what each launch depends
# on, so it is never stale.  rm -rf $(CACHE) to drop it.
clean:
	rm -f ref opt ref.src opt.src *.trace *.trace.log *.trace.tmp pair.*

.PHONY: all verdict clean
.DELETE_ON_ERROR:
