"""Before the first point runs on Ray: the cluster answers, and holds the devices the bisect asks for.

Left to itself, Ray waits: for a head that is gone (connection warnings for minutes), for a
resource no node declares (an actor that never starts), for a token it was not given. A bisect
that waits without a word looks hung. So the driver checks first, each check bounded in time, and
stops with one message naming what is missing and the `ray start` line that would provide it:

- RAY_ADDRESS names a host and port: something must accept a connection there within 5 s;
- connecting to RAY_ADDRESS must finish within CONNECT_S, with the token this machine's heads use
  when one exists (as `ray start` does) (a local cluster, without RAY_ADDRESS or
  with RAY_ADDRESS=local, is started by Ray's own bounded start); when that token is not the
  cluster's (a file under HOME left by another cluster), the failure says so, whatever form Ray
  gives it (a refused connection, actors dying before their first task), never "the cluster was lost";
- the cluster must hold at least one unit of `ray_resource` per device; CPU and GPU are Ray's own
  `num_cpus` and `num_gpus`, any other name a custom resource;
- the actors must start within ACTORS_S when other jobs held the units they need as they were asked
  for; when the units were free, nothing else can hold them, so a slow start is a loaded node
  starting Python workers, and it is waited for up to STARTING_S.

A cluster lost later, in the middle of a round, is `lost`: the bisect pauses with the steps it
has, and the message says how to resume.
"""

from __future__ import annotations

import os
import shlex
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ray  # type: ignore[import-not-found,unused-ignore]  # optional extra perfkit[ray]

from perfkit.errors import InputError, ToolFailure

CONNECT_S = 30.0
PROBE_S = 5.0
ACTORS_S = 45.0
STARTING_S = 900.0


def actor_options(resource: str) -> dict[str, Any]:
    """Ray's keywords for one unit of `resource`: CPU and GPU are num_cpus and num_gpus, not custom resources."""
    if resource == "CPU":
        return {"num_cpus": 1}
    if resource == "GPU":
        return {"num_cpus": 0, "num_gpus": 1}
    return {"num_cpus": 0, "resources": {resource: 1}}


def start_line(resource: str, n: int, head: bool = True) -> str:
    where = "--head" if head else "--address=<head>:6379"
    if resource == "CPU":
        return f"ray start {where} --num-cpus={n}"
    if resource == "GPU":
        return f"ray start {where} --num-gpus={n}"
    declared = '{"' + resource + '": ' + str(n) + "}"
    return f"ray start {where} --resources={shlex.quote(declared)}"


def connect(resource: str, n: int) -> bool:
    """Connect to RAY_ADDRESS's cluster within bounded time, or start a local one; whether a local one was started.

    A local cluster is started in the calling thread: Ray's own start is bounded, and a driver that
    started its cluster from another thread cannot stop it cleanly at exit."""
    if ray.is_initialized():
        return False
    address = os.environ.get("RAY_ADDRESS") or None
    if address in (None, "local"):
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except Exception as exc:  # Ray's own errors, explained
            raise _explained(exc, address, resource, n) from None
        return True
    assert address is not None
    _probe(address, resource, n)
    _token_mode()
    done = threading.Event()
    failure: list[BaseException] = []

    def init() -> None:
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except BaseException as exc:  # handed to the waiting thread, which explains it
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=init, name="perfkit-ray-connect", daemon=True).start()
    if not done.wait(CONNECT_S):
        where = f"RAY_ADDRESS={address}"
        auth = os.environ.get("RAY_AUTH_MODE", "unset")
        raise ToolFailure(
            f"Ray: could not connect to {where} within {CONNECT_S:.0f} s. The bisect is paused, nothing was "
            f"tested. Check the head with `ray status`, or start one: `{start_line(resource, n)}`. If the head "
            f"uses token authentication, give this process its token (RAY_AUTH_MODE is {auth} here; set "
            "RAY_AUTH_MODE=token with RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH)"
        )
    if failure:
        raise _explained(failure[0], address, resource, n) from None
    return False


def check_resources(resource: str, n: int, started_here: bool) -> None:
    """The cluster declares at least n units of `resource`: one per device."""
    have = float(ray.cluster_resources().get(resource, 0))  # type: ignore[no-untyped-call,unused-ignore]
    if have >= n:
        return
    if started_here:
        ray.shutdown()
        where = "the local Ray cluster perfkit started (RAY_ADDRESS names no running cluster)"
        fix = f"start a cluster that declares them, `{start_line(resource, n)}`, and set RAY_ADDRESS=<head>:6379"
    else:
        where = "the Ray cluster"
        fix = f"declare them on the nodes that have them: `{start_line(resource, n)}`"
        fix += f" (or `{start_line(resource, n, False)}`)"
    raise InputError(
        "ray_resource",
        f"{where} has {have:g} {resource}, and the bisect needs {n} (one per entry of devices)",
        f"{fix}; or list fewer devices, or name the resource your nodes declare",
    )


def free_units(resource: str) -> float:
    """Units of resource no job holds now: read just before the actors are asked for."""
    return float(ray.available_resources().get(resource, 0))  # type: ignore[no-untyped-call,unused-ignore]


def wait_actors(
    refs: list[Any], resource: str, n: int, free_before: float, check_stop: Callable[[], None] = lambda: None
) -> list[Any]:
    """The actors' first answers. free_before, the units free when they were asked for, decides how long
    to wait: ACTORS_S when fewer than n were free (other jobs hold them), STARTING_S when all were."""
    limit = STARTING_S if free_before >= n else ACTORS_S
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline:
            check_stop()  # a cancelled call stops the wait as Ctrl-C does
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=1.0)
            if len(ready) == len(refs):
                return list(ray.get(refs))
    except ray.exceptions.RayError as exc:
        raise lost(exc, 0, first_task=True) from None
    if free_before >= n:
        raise ToolFailure(
            f"Ray: the {n} device actors did not start within {limit:.0f} s, though {free_before:g} {resource} were "
            f"free when they were asked for: their node may be out of memory or processes (see `ray status` and "
            f"the node's raylet log). The bisect is paused, nothing was tested"
        )
    raise ToolFailure(
        f"Ray: the {n} device actors did not start within {limit:.0f} s although the cluster declares "
        f"{resource}: other jobs hold them ({free_before:g} free when asked; see `ray status`). The bisect is "
        "paused, nothing was tested"
    )


def lost(exc: BaseException, kept: int, first_task: bool = False) -> ToolFailure:
    """The cluster (or an actor's node) went away: the bisect pauses, and the message says how to go on.

    first_task: nothing had finished on the cluster yet. Actors that die before their first task while
    this process authenticates with a token it picked up by itself are a token the cluster does not
    accept, not a lost cluster (`ray status` shows it healthy)."""
    refused = token_refused(exc, any_failure=first_task)
    if refused is not None:
        return refused
    first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
    return ToolFailure(
        f"Ray: the cluster was lost in the middle of a round ({type(exc).__name__}: {first}). The bisect is "
        f"paused with its {kept} recorded steps; the points of the unfinished round will run again. Start the "
        "cluster again (`ray status` shows it) and run bisect_run (`perfkit bisect-run <repo>`) to resume, or "
        "bisect_reset to drop the bisect"
    )


_TOKEN_SOURCE: list[str] = []  # where this process's token came from, when perfkit turned token authentication on
_REFUSED = ("Unauthenticated", "InvalidAuthToken", "Authentication token")


def _token_source() -> str:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "the token in RAY_AUTH_TOKEN"
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")
    return f"the token file {path}"


def token_refused(exc: BaseException, any_failure: bool = False) -> ToolFailure | None:
    """A failure that is the cluster refusing this process's token, said as such with the fix; None otherwise.

    Ray says so in words (AuthenticationError, "Unauthenticated", "InvalidAuthToken") only sometimes: a
    driver whose token the head does not accept may instead see its connection fail, or its actors die
    before their first task. So when perfkit itself turned token authentication on from a token it found
    (a file under HOME may belong to another cluster), any such failure (any_failure) is read as the token."""
    text = str(exc)
    said = isinstance(exc, getattr(ray.exceptions, "AuthenticationError", ())) or any(w in text for w in _REFUSED)
    if not said and not (any_failure and _TOKEN_SOURCE):
        return None
    source = _TOKEN_SOURCE[0] if _TOKEN_SOURCE else _token_source()
    picked = " (perfkit, like `ray start`, uses it when it exists)" if _TOKEN_SOURCE else ""
    return ToolFailure(
        f"Ray: the cluster does not accept this process's token: token authentication is on here with "
        f"{source}{picked}, and the cluster runs without tokens or with another one; a token file under HOME "
        "may belong to another cluster. The cluster itself is not lost (`ray status` on the head shows it). "
        "If the cluster runs without tokens, set RAY_AUTH_MODE=disabled for perfkit; if it uses one, set "
        "RAY_AUTH_TOKEN_PATH to its token file (the head's ~/.ray/auth_token) or RAY_AUTH_TOKEN to the token. "
        "Then run bisect_run again: the bisect is paused and keeps its steps"
    )


def _token_mode() -> None:
    """Use the token the heads of this machine use: recent `ray start` turns token authentication on when
    ~/.ray/auth_token exists, but a driver joining a cluster does not, and then waits for minutes on
    "Authentication token is missing". The same rule for the driver; RAY_AUTH_MODE set by the user wins."""
    if os.environ.get("RAY_AUTH_MODE") is not None:
        return
    try:  # Ray's own rule (what `ray start` and a local ray.init apply); it also refreshes Ray's cached config
        from ray._private.authentication.authentication_token_setup import (  # type: ignore[import-not-found,unused-ignore]
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a Ray without token authentication: nothing to turn on
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    if os.environ.get("RAY_AUTH_MODE") == "token":
        _TOKEN_SOURCE[:] = [_token_source()]


def _probe(address: str, resource: str, n: int) -> None:
    """A host:port address must accept a TCP connection: a stopped head fails here in seconds, not minutes."""
    if address in ("auto", "local") or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_S):
            return
    except OSError as exc:
        raise ToolFailure(
            f"Ray: nothing answers at RAY_ADDRESS={address} ({exc.strerror or exc}): the head is stopped or the "
            f"address is wrong. The bisect is paused, nothing was tested. Start the head there "
            f"(`{start_line(resource, n)} --port={port}`) or set RAY_ADDRESS to the running head; unset it to "
            "let perfkit start a local cluster"
        ) from None


def _explained(exc: BaseException, address: str | None, resource: str, n: int) -> ToolFailure:
    text = str(exc)
    token = Path.home() / ".ray" / "auth_token"
    refused = token_refused(exc, any_failure=address not in (None, "local", "auto")) if _TOKEN_SOURCE else None
    if refused is not None:  # the head answered (the probe connected), yet the connection failed: the token
        return refused
    if isinstance(exc, getattr(ray.exceptions, "AuthenticationError", ())) or "auth" in text.lower():
        return ToolFailure(
            "Ray: the cluster refused this process's credentials: its head runs with token authentication "
            f"(recent `ray start` turns it on when {token} exists). Give this process the same token: "
            "RAY_AUTH_MODE=token with RAY_AUTH_TOKEN, or the head's token file at RAY_AUTH_TOKEN_PATH (or "
            f"{token}); then run bisect_run again. The bisect is paused, nothing was tested"
        )
    where = f"RAY_ADDRESS={address}" if address else "a new local cluster"
    first = text.strip().splitlines()[0][:200] if text.strip() else type(exc).__name__
    hint = (
        f" A token file exists at {token}: if the head uses token authentication, set RAY_AUTH_MODE=token here too."
        if token.exists()
        else ""
    )
    return ToolFailure(
        f"Ray: could not connect to {where} ({type(exc).__name__}: {first}). The bisect is paused, nothing was "
        f"tested. Check the head with `ray status`, or start one: `{start_line(resource, n)}`.{hint}"
    )
