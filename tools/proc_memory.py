"""Resident memory of a running process, read from /proc: the one reader the tools that sample
memory while a command runs (scale_vs_anserini.py, shards_over_processes.py) share."""

# How often those tools sample, in seconds.
SAMPLE_SECONDS = 0.2


def status_kib(pid, *keys):
    """The named fields of /proc/PID/status (VmRSS, RssAnon, RssFile, ...) in KiB, in the order
    named; zeros once the process has ended."""
    fields = dict.fromkeys(keys, 0)
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in fields:
                    fields[key] = int(value.split()[0])
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    return [fields[key] for key in keys]
