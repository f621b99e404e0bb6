import random
import tracemalloc

import numpy as np
import pytest

from tests.runners.conftest import TONE, read_code
from runners.asr import energy_onset
from runners.sampling import AudioSampler, FrameSampler, SamplingError, sample_stamps


def test_frame_at_returns_the_frame_on_screen_never_later(clip):
    fs = FrameSampler(clip.path)
    assert fs.fps == pytest.approx(clip.fps)
    rng = random.Random(1)
    times = [0.0, 0.04, 0.039, 1.0, 3.3, 11.99, 12.5] + [rng.uniform(0, clip.duration) for _ in range(40)]
    for t in times:
        ft, img = fs.frame_at(t)
        assert ft <= t + 1e-9
        k = read_code(img)
        assert k == round(ft * clip.fps), (t, ft, k)
        assert k == min(int(t * clip.fps + 1e-6), int(clip.duration * clip.fps) - 1)
    with pytest.raises(ValueError):
        fs.frame_at(-0.1)


def test_sequential_reads_do_not_seek(clip):
    fs = FrameSampler(clip.path)
    for i in range(1, 20):
        fs.frame_at(i * 0.5)
    assert fs.stats["seeks"] == 0 and fs.stats["reads"] == 19
    fs.frame_at(1.0)  # cached
    assert fs.stats["hits"] >= 1
    fs.frame_at(0.2)  # backwards: one seek
    assert fs.stats["seeks"] == 1


def test_frames_between_stamps_like_the_reference(clip):
    assert sample_stamps(-1, 2.0, 2.0) == [0.25, 0.75, 1.25, 1.75]
    assert sample_stamps(0.75, 1.75, 2.0) == [1.25, 1.75]
    assert sample_stamps(0, 0.2, 2.0) == []
    fs = FrameSampler(clip.path)
    frames = fs.frames_between(1.0, 3.0, 2.0)
    assert [f.t for f in frames] == [1.25, 1.75, 2.25, 2.75]
    for f in frames:
        assert f.source_t <= f.t
        assert read_code(f.image) == int(f.t * clip.fps)
        t, img = f  # unpacks as (time, image)
        assert t == f.t and img is f.image


def test_resize_and_missing_file(clip, tmp_path):
    fs = FrameSampler(clip.path, max_long_side=160)
    _, img = fs.frame_at(1.0)
    assert max(img.shape[:2]) == 160 and read_code(img) == 25
    with pytest.raises(SamplingError):
        FrameSampler(tmp_path / "nope.mp4")


def test_cache_memory_stays_flat_on_a_long_stream(long_clip):
    fs = FrameSampler(long_clip, max_long_side=None, cache_frames=16, cache_bytes=8 * 2**20)
    one = 640 * 360 * 3
    tracemalloc.start()
    for i in range(0, 60 * 5):  # 5 fps through 60 s
        fs.frame_at(i / 5)
        assert len(fs._cache) <= 16 and fs.cache_nbytes <= 8 * 2**20
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert fs.cache_nbytes <= 16 * one
    assert peak < 24 * one, f"peak {peak} bytes: the cache is not bounded"


def test_audio_sampler_reads_mp4_track_and_wav(clip):
    for path in (clip.path, clip.path.with_suffix(".wav")):
        a = AudioSampler(path, rate=16000)
        assert a.duration == pytest.approx(clip.duration, abs=0.1)
        chunk = a.chunk(1.0, 3.0)
        assert chunk.dtype == np.float32 and len(chunk) == 32000
        onset = energy_onset(chunk, 16000)
        assert onset == pytest.approx(TONE[0] - 1.0, abs=0.08)
        assert len(a.chunk(11.5, 13.0)) == 24000  # padded past the end
