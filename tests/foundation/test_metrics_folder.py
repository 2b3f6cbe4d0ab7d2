"""``config.metrics_folder``: the folder of the workers' metrics, made ready by the supervisor."""

from __future__ import annotations

import os
from pathlib import Path

from config import metrics_folder


def test_a_folder_named_is_created_and_emptied_of_an_earlier_runs_files(
    monkeypatch, tmp_path
) -> None:
    # given
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_4242.db").write_bytes(b"old")
    (folder / "gauge_livesum_4242.db").write_bytes(b"old")
    (folder / "README").write_text("not ours")
    monkeypatch.setenv(metrics_folder.VARIABLE, str(folder))

    # when
    prepared = metrics_folder.prepare()

    # then
    assert prepared == folder
    assert sorted(path.name for path in folder.iterdir()) == ["README"]


def test_a_missing_folder_named_is_created(monkeypatch, tmp_path) -> None:
    folder = tmp_path / "a" / "b"
    monkeypatch.setenv(metrics_folder.VARIABLE, str(folder))

    assert metrics_folder.prepare() == folder
    assert folder.is_dir()


def test_without_a_folder_named_a_private_one_is_made_for_the_run(monkeypatch) -> None:
    monkeypatch.setenv(metrics_folder.VARIABLE, "")  # unset again at teardown
    registered = []
    monkeypatch.setattr(
        metrics_folder.atexit, "register", lambda *args, **kwargs: registered.append(args)
    )

    folder = metrics_folder.prepare()

    try:
        assert folder.is_dir() and not any(folder.iterdir())
        assert os.environ[metrics_folder.VARIABLE] == str(folder)
        assert registered and registered[0][1] == folder  # removed when the run ends
    finally:
        folder.rmdir()


def test_the_private_folders_of_runs_that_are_gone_are_removed(monkeypatch, tmp_path) -> None:
    # given the folders of a run that is gone and of one still running (this process)
    monkeypatch.setenv(metrics_folder.VARIABLE, "")
    monkeypatch.setattr(metrics_folder.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(metrics_folder.atexit, "register", lambda *args, **kwargs: None)
    gone = tmp_path / f"{metrics_folder.PREFIX}999999999-abc"
    running = tmp_path / f"{metrics_folder.PREFIX}{os.getpid()}-def"
    for folder in (gone, running):
        folder.mkdir()
        (folder / "counter_1.db").write_bytes(b"")

    # when
    made = metrics_folder.prepare()

    # then
    assert not gone.exists()
    assert (
        running.exists()
        and made.parent == tmp_path
        and made.name.startswith(f"{metrics_folder.PREFIX}{os.getpid()}-")
    )


def test_a_dead_workers_live_gauges_go_and_its_counters_stay(monkeypatch, tmp_path) -> None:
    # given the files of worker 4242
    monkeypatch.setenv(metrics_folder.VARIABLE, str(tmp_path))
    for name in ("counter_4242.db", "histogram_4242.db", "gauge_livesum_4242.db"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "gauge_livesum_4343.db").write_bytes(b"")

    # when
    metrics_folder.forget_process(4242)

    # then
    assert sorted(path.name for path in Path(tmp_path).iterdir()) == [
        "counter_4242.db",
        "gauge_livesum_4343.db",
        "histogram_4242.db",
    ]
