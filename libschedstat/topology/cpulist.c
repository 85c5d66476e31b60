// SPDX-License-Identifier: GPL-2.0
/* CPU sets and the kernel's CPU-list syntax ("0-3,5,8-11"). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "schedstat-local.h"

int cpuset_count(const struct cpuset *set)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(set->bits); i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

int cpuset_end(const struct cpuset *set)
{
	for (size_t i = ARRAY_SIZE(set->bits); i-- > 0;)
		if (set->bits[i])
			return i * 64 + 64 - __builtin_clzll(set->bits[i]);
	return 0;
}

void cpuset_or(struct cpuset *dst, const struct cpuset *src)
{
	for (size_t i = 0; i < ARRAY_SIZE(dst->bits); i++)
		dst->bits[i] |= src->bits[i];
}

void cpuset_and(struct cpuset *dst, const struct cpuset *src)
{
	for (size_t i = 0; i < ARRAY_SIZE(dst->bits); i++)
		dst->bits[i] &= src->bits[i];
}

void cpuset_andnot(struct cpuset *dst, const struct cpuset *src)
{
	for (size_t i = 0; i < ARRAY_SIZE(dst->bits); i++)
		dst->bits[i] &= ~src->bits[i];
}

bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(a->bits); i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/*
 * Parse one CPU number. Only digits: a sign or a hex prefix is garbage in a
 * CPU list, so strtoul() is too lenient here.
 */
static int parse_cpu(const char **sp, unsigned int *cpu)
{
	const char *s = *sp;
	unsigned long v = 0;
	bool big = false;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		/* Keep scanning so the caller sees where the number ends. */
		if (v >= SCHEDSTAT_MAX_CPUS) {
			big = true;
			v = SCHEDSTAT_MAX_CPUS;
		}
	}
	*sp = s;
	*cpu = v;
	return big ? -ERANGE : 0;
}

int cpulist_parse(const char *str, struct cpuset *set)
{
	struct cpuset tmp = {};
	const char *s = skip_space(str);
	int err;

	/* An empty list is a valid, empty set: sysfs "offline" is often "\n". */
	while (*s) {
		unsigned int first, last;

		err = parse_cpu(&s, &first);
		if (err)
			return err;
		last = first;
		s = skip_space(s);
		if (*s == '-') {
			s = skip_space(s + 1);
			err = parse_cpu(&s, &last);
			if (err)
				return err;
			if (last < first)
				return -EINVAL;
			s = skip_space(s);
		}
		for (unsigned int cpu = first; cpu <= last; cpu++)
			cpuset_set(&tmp, cpu);
		if (*s == ',') {
			/* A separator must be followed by another element. */
			s = skip_space(s + 1);
			if (!*s)
				return -EINVAL;
		} else if (*s) {
			return -EINVAL;
		}
	}
	*set = tmp;
	return 0;
}

int cpulist_format(const struct cpuset *set, char *buf, size_t size)
{
	int end = cpuset_end(set);
	size_t len = 0;
	int cpu = 0;

	if (!size)
		return -ENOSPC;
	buf[0] = '\0';
	while (cpu < end) {
		int first, last, n;

		if (!cpuset_test(set, cpu)) {
			cpu++;
			continue;
		}
		first = cpu;
		while (cpu + 1 < end && cpuset_test(set, cpu + 1))
			cpu++;
		last = cpu++;
		if (first == last)
			n = snprintf(buf + len, size - len, "%s%d",
				     len ? "," : "", first);
		else
			n = snprintf(buf + len, size - len, "%s%d-%d",
				     len ? "," : "", first, last);
		if (n < 0 || (size_t)n >= size - len) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		len += n;
	}
	return 0;
}
