/*
 * test-u64set.c: the set of nonzero 64-bit keys (libcommon/u64set.c):
 * adding, adding again, growth past many doublings, keys that share their
 * low bits (pointers, id pairs).
 */
#include "libcommon/u64set.h"
#include "tap.h"

int main(void)
{
	struct u64set s = { 0 };
	ok(u64set_add(&s, 7) && !u64set_add(&s, 7) && s.len == 1, "a key added once, then it is there");
	bool all = true, again = false;
	for (uint64_t k = 1; k <= 100000; k++)
		all = all && (u64set_add(&s, k << 32) || k << 32 == 7);
	for (uint64_t k = 1; k <= 100000; k++)
		again = again || u64set_add(&s, k << 32);
	ok(all && !again && s.len == 100001, "100000 keys of equal low bits, through many doublings, each once");
	ok(u64set_add(&s, ((uint64_t)5 << 32 | 9) + 1) && !u64set_add(&s, ((uint64_t)5 << 32 | 9) + 1),
	   "a pair of ids as one key");
	u64set_free(&s);
	ok(s.v == NULL && s.len == 0 && u64set_add(&s, 1), "freed, and usable again");
	u64set_free(&s);
	return done_testing();
}
