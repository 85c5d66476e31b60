/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PELT's decay, one copy for the BPF programs and user space: val * y^n
 * (y^32 = 1/2) as the kernel's decay_load() computes it, and the whole
 * periods an entity decays by at its next update. Include it only where
 * it is used: the table is a static array.
 */
#ifndef SCHEDTOP_PELT_DECAY_H
#define SCHEDTOP_PELT_DECAY_H

#define ST_PELT_HALFLIFE	32

/*
 * y^n * 2^32 for n < 32, computed as the kernel's generator
 * (Documentation/scheduler/sched-pelt.c) does: (u32)((2^32 - 1) * y^n).
 */
static const __u32 st_pelt_yn_inv[ST_PELT_HALFLIFE] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
	0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
	0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
	0x85aac367, 0x82cd8698,
};

/*
 * Whole periods from @last_update (ns on the PELT clock, period_contrib of
 * the kernel's 1024 ns "us" into its period) to @now: what the kernel
 * decays by when it next updates the entity then.
 */
static inline __u64 st_pelt_periods(__u64 last_update, __u32 period_contrib,
				    __u64 now)
{
	if (now <= last_update)
		return 0;
	return (period_contrib + ((now - last_update) >> 10)) >> 10;
}

/* decay_load() of a 32-bit average: the product fits 64 bits. */
static inline __u32 st_pelt_decay32(__u32 val, __u64 n)
{
	__u64 v = val;

	/* No periods, no change (the multiply would round one unit away). */
	if (!n)
		return val;
	if (n >= ST_PELT_HALFLIFE * 32)
		return 0;
	v >>= n / ST_PELT_HALFLIFE;
	return (v * st_pelt_yn_inv[n % ST_PELT_HALFLIFE]) >> 32;
}

#endif /* SCHEDTOP_PELT_DECAY_H */
