// SPDX-License-Identifier: GPL-2.0
#include "pelt.h"

/*
 * y^n * 2^32 for n < 32, computed as the kernel's generator
 * (Documentation/scheduler/sched-pelt.c) does: (u32)((2^32 - 1) * y^n).
 */
static const uint32_t yn_inv[PELT_HALFLIFE_PERIODS] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
	0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
	0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
	0x85aac367, 0x82cd8698,
};

uint64_t pelt_decay(uint64_t val, uint64_t n)
{
	/* After 63 half-lives any 64-bit value has decayed to zero. */
	if (n > PELT_HALFLIFE_PERIODS * 63)
		return 0;
	if (n >= PELT_HALFLIFE_PERIODS) {
		val >>= n / PELT_HALFLIFE_PERIODS;
		n %= PELT_HALFLIFE_PERIODS;
	}
	return (uint64_t)(((unsigned __int128)val * yn_inv[n]) >> 32);
}

uint64_t pelt_periods_since(uint64_t last_update_ns, uint32_t period_contrib,
			    uint64_t now_ns)
{
	uint64_t delta_us;

	if (now_ns <= last_update_ns)
		return 0;
	delta_us = (now_ns - last_update_ns) >> 10;
	return (period_contrib + delta_us) / 1024;
}
