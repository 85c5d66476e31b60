/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one ARRAY_SIZE, for libschedstat and schedtop alike. It sits beside the
 * public header so that the front end (built with -Iinclude only) reaches it,
 * but it is not installed: schedstat.h does not include it.
 */
#ifndef SCHEDSTAT_ARRAY_SIZE_H
#define SCHEDSTAT_ARRAY_SIZE_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* SCHEDSTAT_ARRAY_SIZE_H */
