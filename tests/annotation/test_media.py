"""Media facts come from the file itself: fps, duration, size, audio track, start offset."""
import numpy as np
import pytest

from annotation.registry import DEMO_ROOT
from annotation.media import MediaError, probe, probe_or_problem


def test_demo_clip_facts_are_read_from_the_file():
    s = probe(DEMO_ROOT / "interactionbench" / "videos" / "ball_counter.mp4")
    assert s.fps == pytest.approx(25.0) and s.duration == pytest.approx(32.0, abs=0.05)
    assert s.has_audio is True and (s.width, s.height) == (320, 240) and 0.0 <= s.start_offset < 0.1


def test_video_without_audio_and_other_frame_rate(tmp_path):
    import cv2
    path = tmp_path / "silent.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 12.0, (64, 48))
    for k in range(30):
        out.write(np.full((48, 64, 3), k * 8, np.uint8))
    out.release()
    s = probe(path)
    assert s.has_audio is False and s.fps == pytest.approx(12.0) and s.duration == pytest.approx(2.5, abs=0.1)


def test_missing_empty_and_corrupt_files_are_named(tmp_path):
    with pytest.raises(MediaError, match="not found"):
        probe(tmp_path / "nope.mp4")
    (tmp_path / "empty.mp4").write_bytes(b"")
    with pytest.raises(MediaError, match="empty"):
        probe(tmp_path / "empty.mp4")
    (tmp_path / "junk.mp4").write_bytes(b"\x00junk" * 500)
    stream, problem = probe_or_problem("junk", tmp_path / "junk.mp4", "annotations.json", "item-7")
    assert stream.video_path and problem.file == "annotations.json" and problem.item == "item-7"
    assert problem.field == "video" and "cannot be decoded" in problem.message
