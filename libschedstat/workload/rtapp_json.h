/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON as rt-app's users write it (docs/workloads.md, "The rt-app
 * dialect"): what json-c reads in its default mode (comments, trailing
 * commas) plus what workgen mends before rt-app sees a file (keys repeated
 * in one object, whose order is the order of events; a bare string member
 * such as "suspend",). The tree keeps every member in file order, each
 * with its line. Every length, the depth and the number of values are
 * bounded; an error is one line naming the line of the file.
 */
#ifndef RTAPP_JSON_H
#define RTAPP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds: far above any use case written by hand or by LISA. */
#define RJ_MAX_TEXT	(8u << 20)	/* bytes of JSON text */
#define RJ_MAX_DEPTH	32
#define RJ_MAX_NODES	(1u << 20)
#define RJ_MAX_STRING	4096		/* bytes of one string, decoded */

#define RJ_NONE		UINT32_MAX

enum rj_type {
	RJ_NULL,
	RJ_BOOL,
	RJ_INT,
	RJ_DOUBLE,
	RJ_STRING,
	RJ_ARRAY,
	RJ_OBJECT,
	RJ_BARE,	/* an object member with a key and no value */
};

struct rj_node {
	uint8_t type;		/* enum rj_type */
	bool b;
	uint32_t line;		/* of the key in an object, else of the value */
	uint32_t key;		/* offset of the member's key in the pool, or RJ_NONE */
	uint32_t next;		/* the next member or element, or RJ_NONE */
	uint32_t child;		/* ARRAY, OBJECT: the first, or RJ_NONE */
	uint32_t nr;		/* ARRAY, OBJECT: how many */
	uint32_t str;		/* STRING: offset in the pool */
	int64_t i;
	double d;
};

struct rj_doc {
	struct rj_node *nodes;
	size_t nr_nodes, cap_nodes;
	char *pool;		/* NUL-terminated strings, one after another */
	size_t pool_len, pool_cap;
};

/*
 * Parses @text (@len bytes, at most RJ_MAX_TEXT) into @doc, whose root is
 * node 0, an object. 0, -ENOMEM, or -EINVAL with "LINE: what" in @err.
 */
int rj_parse(struct rj_doc *doc, const char *text, size_t len, char *err,
	     size_t errlen);
void rj_free(struct rj_doc *doc);

static inline const struct rj_node *rj_at(const struct rj_doc *d, uint32_t i)
{
	return i == RJ_NONE ? NULL : &d->nodes[i];
}

static inline const char *rj_str(const struct rj_doc *d, uint32_t off)
{
	return off == RJ_NONE ? NULL : d->pool + off;
}

/* The member @key of object @obj (the first, if repeated), or NULL. */
const struct rj_node *rj_get(const struct rj_doc *d, const struct rj_node *obj,
			     const char *key);
/*
 * A member of @obj before @m with @m's key, or NULL: a key that is no
 * event means one thing, and json-c keeps one of two (workgen renames the
 * second, and rt-app then reads the first).
 */
const struct rj_node *rj_earlier(const struct rj_doc *d, const struct rj_node *obj,
				 const struct rj_node *m);
/* What a value is, in words, for an error message ("a string"). */
const char *rj_type_name(const struct rj_node *n);

#endif /* RTAPP_JSON_H */
