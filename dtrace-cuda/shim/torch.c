/*
 * torch.c: the link between the record-only runtime and the torch recorder
 * (dtrace-cuda/python/dirigo_trace), for programs that mix torch ops with
 * their own CUDA kernels (a KernelBench ModelNew, a C++/CUDA extension).
 *
 * The recorder runs in the same process and calls these functions through
 * ctypes (they are exported next to the CUDA ABI, see cudart.map):
 *
 *   dirigo_trace_active()       1 when this process records (claims the
 *                               trace, as a first CUDA call would)
 *   dirigo_trace_write(p, n)    appends n bytes, one or more whole records,
 *                               to the trace, under the runtime's lock, so
 *                               the torch records and the runtime's own
 *                               land in one stream in program order; they
 *                               stay in the stream's buffer until the
 *                               runtime writes a record of its own, a fork
 *                               or the exit (a GRU writes 200,000 records,
 *                               and a write(2) each cost seconds)
 *   dirigo_trace_storage(base, bytes, id)
 *                               a torch storage lives at [base, base+bytes);
 *                               it replaces storages it overlaps
 *   dirigo_trace_suppress(d)    adds d (+1 / -1) to the suppression depth:
 *                               while above 0 (a torch op runs, paper 3.1)
 *                               nothing is recorded, and buffers allocated
 *                               meanwhile belong to torch (hidden)
 *   dirigo_trace_written(ids, cap)
 *                               the storages launches received pointers
 *                               into, or copies and memsets wrote, since the
 *                               last call (at most cap): one entry per event
 *                               and storage, in order; the recorder gives the
 *                               storage one new version per entry, as dmerge
 *                               does per record (dirigo-trace(5), STORAGE
 *                               VERSIONS)
 *
 * A launch parameter that points into no buffer of the program's own but
 * into a registered storage is recorded as {"storage": id, "off": bytes}.
 */
#include "shim.h"

#include <string.h>
#include <unistd.h>

SHIM_EXPORT int dirigo_trace_active(void);
SHIM_EXPORT int dirigo_trace_write(const void *p, size_t n);
SHIM_EXPORT void dirigo_trace_storage(uint64_t base, uint64_t bytes, uint32_t id);
SHIM_EXPORT void dirigo_trace_suppress(int delta);
SHIM_EXPORT uint32_t dirigo_trace_written(uint32_t *ids, uint32_t cap);

int dirigo_trace_active(void)
{
	shim_lock();
	int on = shim_out() != NULL;
	shim_unlock();
	return on;
}

int dirigo_trace_write(const void *p, size_t n)
{
	shim_lock();
	int rc = 0;
	if (shim.f && getpid() == shim.pid) {
		if (fwrite(p, 1, n, shim.f) != n)
			rc = -1;
	}
	shim_unlock();
	return rc;
}

/* Index of the first storage whose base is > p. */
static size_t store_upper(uintptr_t p)
{
	size_t lo = 0, hi = shim.stores.len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (shim.stores.items[mid].base <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void dirigo_trace_storage(uint64_t base, uint64_t bytes, uint32_t id)
{
	if (base == 0 || bytes == 0)
		return;
	shim_lock();
	/* drop the storages [base, base+bytes) overlaps: their memory was
	 * freed and reused */
	size_t at = store_upper(base);
	size_t from = at;
	if (from > 0) {
		struct shim_store *s = &shim.stores.items[from - 1];
		if (base - s->base < s->bytes)
			from--;
	}
	size_t to = at;
	while (to < shim.stores.len && shim.stores.items[to].base < base + bytes)
		to++;
	struct shim_store n = { .base = base, .bytes = bytes, .id = id };
	if (to > from) {
		shim.stores.items[from] = n;
		memmove(&shim.stores.items[from + 1], &shim.stores.items[to],
		        (shim.stores.len - to) * sizeof n);
		shim.stores.len -= to - from - 1;
	} else {
		VEC_PUSH(shim.stores, n);
		memmove(&shim.stores.items[from + 1], &shim.stores.items[from],
		        (shim.stores.len - 1 - from) * sizeof n);
		shim.stores.items[from] = n;
	}
	shim_unlock();
}

void dirigo_trace_suppress(int delta)
{
	shim_lock();
	shim.suppress += delta;
	if (shim.suppress < 0)
		shim.suppress = 0;
	shim_unlock();
}

uint32_t dirigo_trace_written(uint32_t *ids, uint32_t cap)
{
	shim_lock();
	uint32_t n = 0;
	while (n < cap && n < shim.written.len) {
		ids[n] = shim.written.items[n].id;
		n++;
	}
	memmove(shim.written.items, shim.written.items + n,
	        (shim.written.len - n) * sizeof *shim.written.items);
	shim.written.len -= n;
	shim_unlock();
	return n;
}

struct shim_store *shim_store_find(uintptr_t p)
{
	size_t at = store_upper(p);
	if (at == 0)
		return NULL;
	struct shim_store *s = &shim.stores.items[at - 1];
	return p - s->base < s->bytes ? s : NULL;
}

void shim_store_written(uint32_t id, uint32_t event)
{
	for (size_t i = shim.written.len; i-- > 0 && shim.written.items[i].event == event;)
		if (shim.written.items[i].id == id)
			return;
	struct shim_written w = { id, event };
	VEC_PUSH(shim.written, w);
}
