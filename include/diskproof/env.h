/*
 * env.h - facts of the host and of the devices under the volumes, recorded
 * with every run so that a comparison explains itself ("vda firmware: 1.2 ->
 * 1.3"). What the machine does not expose reads "unknown", never an error.
 *
 * Each fact is handed to a callback as (key, value); keys are stable:
 *   host: hostname, kernel, machine, cpu_model, cpus, memory_total
 *   device of volume V: device.V.name, .model, .firmware, .serial,
 *     .rotational, .scheduler, .write_cache, .nr_requests,
 *     .logical_block_size, .physical_block_size, .size_bytes
 */
#ifndef DISKPROOF_ENV_H
#define DISKPROOF_ENV_H

typedef void (*env_fact_fn)(void *arg, const char *key, const char *value);

void env_collect_host(env_fact_fn fn, void *arg);

/* The disk holding path (a directory, a file or a block device; a
 * partition's queue settings are read from the disk beneath it). */
void env_collect_device(const char *volume, const char *path, env_fact_fn fn, void *arg);

#endif
