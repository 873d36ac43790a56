"""What the operator of a deployment decides, read once from the environment and secrets.toml.

A viewer can change none of this. Environment variables win over ``[explorer]`` in
``.streamlit/secrets.toml``; database connections are ``[connections.<name>]`` tables there.

| setting | environment | secrets.toml `[explorer]` | default |
|---|---|---|---|
| memory budget per file or table | `EXPLORER_MAX_MEMORY` | `max_memory` | 2GB |
| rows per file or table | `EXPLORER_MAX_ROWS` | `max_rows` | 5,000,000 |
| agents / tasks per dataset | `EXPLORER_MAX_AGENTS` / `_TASKS` | `max_agents` / `max_tasks` | 10,000 / 100,000 |
| characters of one run, agent or task id | `EXPLORER_MAX_ID_CHARS` | `max_id_chars` | 1,000 |
| events per Inspect sample | `EXPLORER_MAX_EVENTS` | `max_events` | 100,000 |
| CPU seconds to read, check and score an input, or bootstrap it | `EXPLORER_MAX_CPU_SECONDS` | `max_cpu_seconds` | 60 |
| resident memory the worker may use beyond the budget | `EXPLORER_WORKER_OVERHEAD` | `worker_overhead` | 350MB |
| memory all cached datasets may hold | `EXPLORER_CACHE_MEMORY` | `cache_memory` | 2GB |
| memory uploaded files of open sessions may hold (a file once) | `EXPLORER_UPLOAD_MEMORY` | `upload_memory` | 2GB |
| idle minutes before a cached dataset is dropped | `EXPLORER_CACHE_IDLE_MINUTES` | `cache_idle_minutes` | 30 |
| workers at once in one server process (others wait) | `EXPLORER_MAX_WORKERS` | `max_workers` | usable cores |
| viewers may type a database URL | `EXPLORER_ALLOW_DATABASE_URL` | `allow_database_url` | false |
| hosts such a URL may name (empty: any) | `EXPLORER_DATABASE_URL_HOSTS` | `database_url_hosts` | (any) |
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from scoring.contract.limits import DEFAULT_LIMITS, Limits, parse_size
from scoring.load.database import NamedConnection, SourceRefused, operator_connection


@dataclass(frozen=True)
class Settings:
    limits: Limits = DEFAULT_LIMITS
    cache_memory: int = 2 * 10**9
    upload_memory: int = 2 * 10**9  # what Streamlit's uploader may hold for every session (explorer.upload_patch)
    cache_idle_seconds: float = 30 * 60
    # Workers (uploads read, bootstraps) one server process runs at once: each may hold the memory budget + the
    # worker's overhead, and more than one a core only share the cores; a request past it waits for a free one.
    max_workers: int = dataclasses.field(default_factory=lambda: usable_cores())
    allow_database_url: bool = False
    database_url_hosts: tuple[str, ...] = ()
    connections: tuple[NamedConnection, ...] = ()
    problems: tuple[str, ...] = ()  # configuration the operator should fix (shown to no viewer)

    def connection(self, name: str) -> NamedConnection | None:
        return next((c for c in self.connections if c.name == name), None)

    @property
    def database_source(self) -> bool:
        """Whether the app offers a database source at all."""
        return bool(self.connections) or self.allow_database_url


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity: a container's cpuset, not the host's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _flag(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _hosts(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value or [])
    return tuple(h.strip() for h in items if str(h).strip())


def read_settings(environ: Mapping[str, str], secrets: Mapping[str, Any]) -> Settings:
    """Settings from an environment and a secrets mapping (both plain mappings: testable without Streamlit)."""
    own = dict(secrets.get("explorer", {}) or {})

    def pick(env: str, key: str) -> Any:
        return environ[env] if env in environ else own.get(key)

    problems: list[str] = []
    settings = Settings()
    limits = settings.limits
    for env, key, parse, field in (("EXPLORER_MAX_MEMORY", "max_memory", parse_size, "max_memory"),
                                   ("EXPLORER_MAX_ROWS", "max_rows", int, "max_rows"),
                                   ("EXPLORER_MAX_AGENTS", "max_agents", int, "max_agents"),
                                   ("EXPLORER_MAX_TASKS", "max_tasks", int, "max_tasks"),
                                   ("EXPLORER_MAX_ID_CHARS", "max_id_chars", int, "max_id_chars"),
                                   ("EXPLORER_MAX_EVENTS", "max_events", int, "max_events"),
                                   ("EXPLORER_MAX_CPU_SECONDS", "max_cpu_seconds", int, "max_cpu_seconds"),
                                   ("EXPLORER_WORKER_OVERHEAD", "worker_overhead", parse_size, "worker_overhead")):
        value = pick(env, key)
        if value is not None:
            try:
                limits = replace(limits, **{field: parse(value)})
            except (TypeError, ValueError) as exc:
                problems.append(f"{env} / {key}: {exc}; the default is used")
    settings = replace(settings, limits=limits)
    sizes: dict[str, Any] = {}
    for env, key in (("EXPLORER_CACHE_MEMORY", "cache_memory"), ("EXPLORER_UPLOAD_MEMORY", "upload_memory")):
        value = pick(env, key)
        if value is not None:
            try:
                sizes[key] = parse_size(value)
            except ValueError as exc:
                problems.append(f"{env} / {key}: {exc}; the default is used")
    settings = replace(settings, **sizes)
    value = pick("EXPLORER_MAX_WORKERS", "max_workers")
    if value is not None:
        try:
            workers = int(value)
            if isinstance(value, bool) or workers < 1:
                raise ValueError
            settings = replace(settings, max_workers=workers)
        except (TypeError, ValueError):
            problems.append(f"EXPLORER_MAX_WORKERS / max_workers: not a whole number of at least 1: {value!r}; "
                            "the default is used")
    value = pick("EXPLORER_CACHE_IDLE_MINUTES", "cache_idle_minutes")
    if value is not None:
        try:
            settings = replace(settings, cache_idle_seconds=60 * max(1.0, float(value)))
        except (TypeError, ValueError):
            problems.append(f"EXPLORER_CACHE_IDLE_MINUTES / cache_idle_minutes: not a number: {value!r}")
    settings = replace(settings, allow_database_url=_flag(pick("EXPLORER_ALLOW_DATABASE_URL", "allow_database_url")),
                       database_url_hosts=_hosts(pick("EXPLORER_DATABASE_URL_HOSTS", "database_url_hosts")))
    connections = []
    for name, config in (secrets.get("connections", {}) or {}).items():
        try:
            connections.append(operator_connection(str(name), dict(config)))
        except (SourceRefused, TypeError, ValueError) as exc:
            problems.append(str(exc))
    return replace(settings, connections=tuple(connections), problems=tuple(problems))


def current() -> Settings:
    """The deployment's settings (secrets.toml is optional; without it, the defaults)."""
    import streamlit as st

    # No secrets.toml (or one Streamlit cannot parse: it logs why) means the defaults.
    secrets = st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}
    return read_settings(os.environ, secrets)
