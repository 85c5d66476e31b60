// SPDX-License-Identifier: GPL-2.0
/*
 * A session is one backend (source.h) chosen at open: BPF by default, a
 * tracefs instance where BPF cannot be used, or a trace file.
 */
#include <errno.h>
#include <stdlib.h>

#include "source.h"

struct schedstat_session {
	const struct source_ops *ops;
	void *src;
	struct schedstat_energy_model *em;	/* the caller's, bound here */
};

/* BPF failures that tracefs does not share: worth trying it instead. */
static bool session_bpf_unusable(int err)
{
	switch (-err) {
	case SCHEDSTAT_ERR_NO_BTF:
	case SCHEDSTAT_ERR_KERNEL_TOO_OLD:
	case SCHEDSTAT_ERR_NO_PRIV:
	case SCHEDSTAT_ERR_NO_SCHED_TP:
	case SCHEDSTAT_ERR_BPF_LOAD:
		return true;
	}
	return false;
}

int schedstat_session_open(struct schedstat_session **out,
			   const struct schedstat_session_opts *opts)
{
	struct schedstat_session *s;
	int err, first_err;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* The PELT stream is the kernel's own values, through BPF only. */
	if (opts->pelt_trace && (opts->trace_file ||
				 opts->source == SCHEDSTAT_SOURCE_TRACEFS)) {
		free(s);
		return -SCHEDSTAT_ERR_PELT_SOURCE;
	}
	if (opts->trace_file) {
		s->ops = &trace_source_ops;
	} else if (opts->source == SCHEDSTAT_SOURCE_TRACEFS) {
		s->ops = &ftsrc_ops;
	} else {
		s->ops = &bpfsrc_ops;
	}
	err = s->ops->open(&s->src, opts);
	if (err && !opts->trace_file && opts->source == SCHEDSTAT_SOURCE_AUTO &&
	    !opts->pelt_trace && session_bpf_unusable(err)) {
		first_err = err;
		s->ops = &ftsrc_ops;
		err = s->ops->open(&s->src, opts);
		/*
		 * Unprivileged, tracefs fails too (EACCES): the BPF message
		 * says what to do, and is the one the user expects.
		 */
		if (err == -SCHEDSTAT_ERR_TRACEFS_PRIV)
			err = first_err;
	}
	if (!err && opts->energy_model) {
		s->em = opts->energy_model;
		err = schedstat_energy_model_bind(s->em, s->ops->topology(s->src));
		if (err)
			s->ops->close(s->src);
	}
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void schedstat_session_close(struct schedstat_session *s)
{
	if (!s)
		return;
	s->ops->close(s->src);
	free(s);
}

const char *schedstat_session_source(const struct schedstat_session *s)
{
	return s->ops->name;
}

int schedstat_session_sample(struct schedstat_session *s,
			     struct schedstat_snapshot **out)
{
	int err = s->ops->sample(s->src, out);

	if (!err && s->em)
		schedstat_snapshot_apply_energy(*out, s->em);
	return err;
}

int schedstat_session_poll(struct schedstat_session *s)
{
	return s->ops->poll(s->src);
}

int schedstat_session_flush(struct schedstat_session *s)
{
	int n = s->ops->flush ? s->ops->flush(s->src) : s->ops->poll(s->src);

	return n < 0 ? n : 0;
}

uint64_t schedstat_session_pelt_dropped(const struct schedstat_session *s)
{
	return s->ops->pelt_dropped ? s->ops->pelt_dropped(s->src) : 0;
}

int schedstat_session_event_fd(const struct schedstat_session *s)
{
	return s->ops->event_fd(s->src);
}

const struct schedstat_topology *
schedstat_session_topology(const struct schedstat_session *s)
{
	return s->ops->topology(s->src);
}

int schedstat_session_pelt_info(const struct schedstat_session *s,
				struct schedstat_pelt_info *info)
{
	if (!s->ops->pelt_info)
		return -EOPNOTSUPP;
	return s->ops->pelt_info(s->src, info);
}
