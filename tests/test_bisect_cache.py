"""The build cache: returning to a commit already built costs no install, and what comes back is right.

The install commands here build for real in the sense that matters: they write the submodule
commit into a build output inside the checkout (untracked) and into the worker's environment, and
the run command refuses (no verdict) when either does not match the commit under test. So a
cache that restored the wrong files, or left the previous build's files behind, gives wrong
verdicts, which the test compares with the truth from git objects.
"""

from __future__ import annotations

from pathlib import Path

from helpers.bisect_project import Project, build
from helpers.gitbuild import snapshot
from perfkit.bisect.state import store as statefile
from perfkit.bisect.state.build_cache import BuildCache
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start


def sub_install(p: Project) -> list[str]:
    return [
        'if [ -n "$VIRTUAL_ENV" ]; then mkdir -p build && echo "$PERFKIT_SUBMODULE_COMMIT" > build/out.txt; '
        'rm -f "$VIRTUAL_ENV"/runtime-*.txt; '
        'echo "$PERFKIT_SUBMODULE_COMMIT" > "$VIRTUAL_ENV/runtime-$PERFKIT_SUBMODULE_COMMIT.txt"; fi',
        *p.installs_sub(),
    ]


def checked_run(p: Project) -> str:
    stale = (
        'test "$(cat "$PERFKIT_SUBMODULE/build/out.txt")" = "$PERFKIT_SUBMODULE_COMMIT" '
        '&& test "$(ls "$VIRTUAL_ENV"/runtime-*.txt | wc -l)" = 1 '
        '&& test -e "$VIRTUAL_ENV/runtime-$PERFKIT_SUBMODULE_COMMIT.txt" || { echo STALE build; exit 3; }'
    )
    return f"{stale}; {p.run_cmd()}"


def test_returning_to_a_cached_runtime_costs_no_install(tmp_path, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    kernel = [""] * 4
    plan: list[tuple] = []
    for ptr in (1, 2, 1, 2, 1, 3):
        plan += [("ptr", ptr)] + [("src", "")] * 3
    plan += [("src", "BUG", "bug")] + [("src", "BUG")] * 3
    p = build(tmp_path, kernel, plan)
    before = snapshot(p.sup.path)
    bisect_start(
        p.path, p.c["add"], run=checked_run(p), install=p.installs(), install_submodule=sub_install(p),
        devices=["0"], cache_builds=True,
    )  # fmt: skip
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["bug"], res.message
    for s in res.steps:
        assert s.ran and s.verdict == p.expected(s.superproject, s.submodule), s
    # the worker's runtime changed between points more often than the runtime was built
    changes = sum(1 for a, b in zip(res.steps, res.steps[1:], strict=False) if a.submodule != b.submodule)
    built = [s for s in res.steps if "submodule" in s.installed]
    assert len(built) == len({s.submodule for s in res.steps})  # each runtime commit built once
    assert changes + 1 > len(built)  # and at least one return to a built one cost nothing
    restored = [s for s in res.steps if "restored from the build cache" in Path(s.log).read_text()]
    assert restored and all("submodule" not in s.installed for s in restored)
    assert len(p.lines("sub.log")) == len(built)  # no restore: the worker's environment held every build
    assert snapshot(p.sup.path) == before
    assert not (statefile.state_dir(p.sup.path) / "workers").exists()  # the cache went with the workers
    bisect_reset(p.path)


def test_cache_swaps_one_build_for_another_and_keeps_to_its_limit(tmp_path):
    env, side = tmp_path / "env", tmp_path / "side"
    env.mkdir()
    side.mkdir()
    import subprocess

    subprocess.run(["git", "init", "-q", str(side)], check=True)
    cache = BuildCache(tmp_path / "cache", limit_mb=1)

    def install(tag: str, size: int) -> str:
        for f in env.glob("pkg-*"):
            f.unlink()
        key = cache.key(0, "submodule", tag, ["make"])
        before = cache.listing(env, side, None)
        (env / f"pkg-{tag}.py").write_text(tag)
        (side / "out.bin").write_bytes(tag.encode() * size)
        cache.store(key, before, cache.listing(env, side, None), env, side)
        return key

    a = install("a", 10)
    b = install("b", 10)
    assert cache.has(a) and cache.has(b)
    assert cache.restore(a, b, env, side)  # b's files go, a's come back
    assert sorted(p.name for p in env.iterdir()) == ["pkg-a.py"] and (side / "out.bin").read_bytes() == b"a" * 10
    assert cache.restore(b, a, env, side)
    assert sorted(p.name for p in env.iterdir()) == ["pkg-b.py"] and (side / "out.bin").read_bytes() == b"b" * 10
    # over the limit, the least recently used entries go first
    big = install("c", 700_000)
    install("d", 700_000)
    assert not cache.has(big) and not cache.has(a)
    assert sum(p.stat().st_size for p in (tmp_path / "cache").glob("*.tar")) <= 1024 * 1024 + 10_240
    # a different install command is a different entry
    assert cache.key(0, "submodule", "a", ["make"]) != cache.key(0, "submodule", "a", ["make -j8"])
    assert cache.key(0, "submodule", "a", ["make"]) != cache.key(1, "submodule", "a", ["make"])
