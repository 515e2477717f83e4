/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the explicit list of engines (no constructors: they are
 * dropped when linking from a static library), lookup, the ops validator and
 * the clocks engines run on.
 */
#include <errno.h>
#include <string.h>

#include "diskproof/engine.h"

static const struct engine_ops *const registry[] = {
	&engine_io_uring,
	&engine_libaio,
	&engine_psync,
	&engine_sim,
};

const struct engine_ops *const *engine_registry(size_t *count)
{
	*count = DP_ARRAY_SIZE(registry);
	return registry;
}

const struct engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; i < DP_ARRAY_SIZE(registry); i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

bool engine_simulated(const char *name)
{
	const struct engine_ops *ops = engine_find(name);

	return ops && (ops->flags & ENGINE_SIMULATED_FLAGS) == ENGINE_SIMULATED_FLAGS;
}

int engine_ops_validate(const struct engine_ops *ops, struct strbuf *err)
{
	if (!ops->name || !ops->name[0]) {
		strbuf_addstr(err, "engine without a name");
		return -EINVAL;
	}
	if (ops->unavailable)
		return 0;
	if (!ops->init || !ops->open || !ops->queue || !ops->commit || !ops->reap || !ops->close ||
	    !ops->cleanup) {
		strbuf_addf(err, "engine %s: a hook is missing", ops->name);
		return -EINVAL;
	}
	return 0;
}

static uint64_t clock_mono_now(const struct engine_clock *c)
{
	(void)c;
	return time_mono_ns();
}

static uint64_t clock_virtual_now(const struct engine_clock *c)
{
	return c->virtual_ns;
}

void engine_clock_init_mono(struct engine_clock *c)
{
	c->now = clock_mono_now;
	c->virtual_ns = 0;
}

void engine_clock_init_virtual(struct engine_clock *c)
{
	c->now = clock_virtual_now;
	c->virtual_ns = 0;
}
