"""A target repository with a delivery branch that holds one change of every kind.

On main: a data loader whose empty-batch guard came with its own test in PR #88. On the delivery
branch: a launcher setting (an allocator environment variable), a new option off by default that
the recipe turns on, a source change, and the removal of that guard, so classify_changes and
git_blame_removal have something real to sort and explain.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

from perfkit.cli.demo.assets import examples_dir

LOADER = '''"""Batches for the Paraformer recipe."""
import torch


class DataLoader:
    def __init__(self, dataset, conf):
        self.dataset = dataset
        self.batch_size = conf.get("batch_size", 32)

    def collate(self, items):
        batch = torch.stack([item["speech"] for item in items])
{guard}        return batch
'''
GUARD = """        if batch.numel() == 0:
            # Empty shards happen when a worker gets no utterances (see #88).
            return None
"""
BUCKETS = """        self.bucket_lengths = conf.get("bucket_lengths", None)
"""
RECIPE = "batch_size: 32\nnum_workers: 8\n"
LAUNCHER = "#!/bin/bash\ntorchrun --nproc_per_node 8 train.py --config conf/train.yaml\n"


def _git(repo: Path, *args: str, date: int) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_AUTHOR_NAME": "Example",
            "GIT_AUTHOR_EMAIL": "example@example.com",
            "GIT_COMMITTER_NAME": "Example",
            "GIT_COMMITTER_EMAIL": "example@example.com",
            "GIT_AUTHOR_DATE": f"{date} +0000",
            "GIT_COMMITTER_DATE": f"{date} +0000",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(repo.parent),
        }
    )
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, env=env, capture_output=True, text=True
    ).stdout.strip()


def _commit(repo: Path, message: str, files: dict[str, str], date: int) -> str:
    for rel, text in files.items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    _git(repo, "add", "-A", date=date)
    _git(repo, "commit", "-q", "-m", message, date=date)
    return _git(repo, "rev-parse", "HEAD", date=date)


def build(path: Path) -> tuple[Path, str, str]:
    """Create the repository; returns (repo, base, head) of the delivery branch."""
    spec = importlib.util.spec_from_file_location(
        "perfkit_example_target", examples_dir() / "publish" / "target_repo.py"
    )
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {examples_dir() / 'publish' / 'target_repo.py'}")
    target = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(target)
    repo = target.build(path)
    loader = "funasr/datasets/loader.py"
    t = 1_700_100_000
    _commit(
        repo,
        "Add the Paraformer data loader (#71)",
        {
            loader: LOADER.format(guard=""),
            "examples/paraformer/conf/train.yaml": RECIPE,
            "examples/paraformer/run.sh": LAUNCHER,
        },
        t,
    )
    _commit(
        repo,
        "Skip empty batches from workers without utterances (#88)",
        {
            loader: LOADER.format(guard=GUARD),
            "tests/test_empty_batch.py": "def test_empty_shard_yields_no_batch():\n    assert True\n",
        },
        t + 100,
    )
    base = _git(repo, "rev-parse", "HEAD", date=t)
    _git(repo, "checkout", "-q", "-b", "perf/paraformer", date=t)
    _commit(
        repo,
        "Use expandable segments in the launcher",
        {
            "examples/paraformer/run.sh": LAUNCHER.replace(
                "torchrun", "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\ntorchrun"
            )
        },
        t + 200,
    )
    _commit(
        repo,
        "Bucket utterance lengths so the encoder stops recompiling",
        {
            loader: LOADER.format(guard=GUARD).replace(
                '        self.batch_size = conf.get("batch_size", 32)\n',
                '        self.batch_size = conf.get("batch_size", 32)\n' + BUCKETS,
            ),
            "examples/paraformer/conf/train.yaml": RECIPE + "bucket_lengths: [256, 512, 1024, 2048]\n",
        },
        t + 300,
    )
    _commit(
        repo,
        "Fuse the CTC and attention losses",
        {"funasr/losses/fused.py": "def fused_loss(ctc, att, weight):\n    return weight * ctc + (1 - weight) * att\n"},
        t + 400,
    )
    text = (repo / loader).read_text().replace(GUARD, "")
    head = _commit(repo, "Drop the empty-batch check from collate", {loader: text}, t + 500)
    return repo, base, head
