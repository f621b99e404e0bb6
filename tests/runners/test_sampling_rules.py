"""Frame and audio sampling rules (runners.sampling) at known frame rates and durations, worked by hand: which stamps
lie in (t0, t1], which frame is on screen at t, when the sampler reads on or seeks, what the bounded cache keeps, how
a frame count that overstates the file is corrected, and which audio samples a chunk holds. The 4 s clip has 100
frames at 25 fps, each with its index burned in (conftest.read_code)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.runners.conftest import make_clip, read_code
from runners.sampling import (AudioSampler, Frame, FrameSampler, SamplingError, _resample, resize_long_side,
                              sample_stamps)


@pytest.fixture(scope="module")
def short(tmp_path_factory) -> Path:
    return make_clip(tmp_path_factory.mktemp("short") / "four.mp4", duration=4.0)


@pytest.mark.parametrize("t0, t1, fps, stamps", [
    (0.25, 0.75, 2.0, [0.75]),               # (i + 0.5) / 2: 0.25 is t0 itself (left open), 0.75 is t1 (closed)
    (0.2499, 0.7499, 2.0, [0.25]),           # just inside on the left, just short of 0.75 on the right
    (-1.0, 1.0, 2.0, [0.25, 0.75]),          # nothing before the stream starts
    (1.0, 2.0, 3.0, [1.166667, 1.5, 1.833333]),  # 3.5/3, 4.5/3, 5.5/3 rounded to 6 places
    (2.0, 2.6, 1.0, [2.5]),                  # 2.5 / 1
    (10.0, 10.5, 1.0, [10.5]),               # 9.5 lies before t0; 10.5 lies on t1
    (0.0, 0.05, 10.0, [0.05]),               # 0.5 / 10 = 0.05 lies on t1
    (0.0, 0.0499, 10.0, []),
    (0.249999999, 0.749999999, 2.0, [0.75]),  # within 1e-9 of a stamp counts as the stamp (float noise), both ends
    (10.0, 14.0, 0.5, [11.0, 13.0]),         # one frame every 2 s: (i + 0.5) / 0.5 = 2i + 1
])
def test_stamps_lie_in_the_half_open_window(t0, t1, fps, stamps):
    assert sample_stamps(t0, t1, fps) == stamps


def test_a_stamp_start_far_into_the_stream_skips_what_came_before():
    """At 4 fps, (t0, t1] = (100, 101]: stamps 100.125, 100.375, 100.625, 100.875 ((400.5 .. 403.5) / 4)."""
    assert sample_stamps(100.0, 101.0, 4.0) == [100.125, 100.375, 100.625, 100.875]


@pytest.mark.parametrize("fps", [0, -2.0])
def test_a_rate_that_is_not_positive_is_refused(fps):
    with pytest.raises(ValueError, match=rf"^sample fps must be > 0, got {fps}$"):
        sample_stamps(0.0, 1.0, fps)


def test_resize_keeps_small_images_and_scales_the_long_side():
    """320x180 to a long side of 160: scale 0.5 -> 160x90. A portrait 100x300 to 150: 50x150. 1000x3 to 100: the
    short side rounds to 0 and is kept at 1 px. A long side equal to the limit, None and 0 leave the image as is."""
    wide = np.zeros((180, 320, 3), np.uint8)
    assert resize_long_side(wide, 160).shape == (90, 160, 3)
    assert resize_long_side(np.zeros((300, 100, 3), np.uint8), 150).shape == (150, 50, 3)
    assert resize_long_side(np.zeros((3, 1000, 3), np.uint8), 100).shape == (1, 100, 3)
    for limit in (320, 321, None, 0):
        assert resize_long_side(wide, limit) is wide


def test_the_frame_on_screen_at_t_by_hand(short):
    """Frame k is shown from k / 25 on: t = 0.04 is frame 1, 0.0399 still frame 0, 1.0 frame 25, 3.99 frame 99 and
    anything past the end the last frame, 99 (at 3.96 s). Negative times are refused."""
    fs = FrameSampler(short, max_long_side=32)
    assert (fs.fps, fs.frame_count, fs.duration, fs.path) == (25.0, 100, 4.0, str(short))
    for t, k in ((0.0, 0), (0.0399, 0), (0.04, 1), (1.0, 25), (0.999, 24), (3.99, 99), (7.5, 99)):
        assert fs.index_at(t) == k, t
        ft, img = fs.frame_at(t)
        assert (ft, read_code(img)) == (k / 25, k), t
    with pytest.raises(ValueError, match=r"no frame exists before t=0 \(asked for t=-0\.01\)"):
        fs.index_at(-0.01)
    f = fs.frame(1.0300004)
    assert (f.t, f.source_t, read_code(f.image)) == (1.03, 1.0, 25)  # frame 25 shown at 1.0 <= 1.03 < 1.04
    t, img = f
    assert t == 1.03 and img is f.image
    assert isinstance(f, Frame) and not f.image.flags.writeable  # cached frames are read-only


def test_frames_between_stop_at_the_duration(short):
    """At 2 fps, (3, 5] holds stamps 3.25, 3.75, 4.25, 4.75; a 4.0 s duration keeps 3.25 and 3.75 (frames 81, 93).
    Without it the later stamps show the last frame, 99."""
    fs = FrameSampler(short, max_long_side=32)
    cut = fs.frames_between(3.0, 5.0, 2.0, duration=4.0)
    assert [(f.t, read_code(f.image)) for f in cut] == [(3.25, 81), (3.75, 93)]
    whole = fs.frames_between(3.0, 5.0, 2.0)
    assert [(f.t, f.source_t, read_code(f.image)) for f in whole] == [
        (3.25, 3.24, 81), (3.75, 3.72, 93), (4.25, 3.96, 99), (4.75, 3.96, 99)]


def test_reading_on_within_the_forward_limit_and_seeking_beyond_it(short):
    """forward_limit = 25 fps * 1 s = 25 frames. From the start, frame 25 is read on (grabbing 0..24 unconverted:
    no seek, one read); frame 26 needs a seek. Reading backwards always seeks; the frame read is the one asked."""
    fs = FrameSampler(short, max_long_side=32, forward_limit_s=1.0)
    assert fs.forward_limit == 25
    assert read_code(fs.frame_at(1.0)[1]) == 25
    assert fs.stats == {"reads": 1, "seeks": 0, "hits": 0, "misses": 1}
    assert read_code(fs.frame_at(2.04)[1]) == 51  # next is 26; 51 = 26 + 25: still read on
    assert fs.stats == {"reads": 2, "seeks": 0, "hits": 0, "misses": 2}
    assert read_code(fs.frame_at(0.4)[1]) == 10  # backwards
    assert fs.stats == {"reads": 3, "seeks": 1, "hits": 0, "misses": 3}
    far = FrameSampler(short, max_long_side=32, forward_limit_s=1.0)
    assert read_code(far.frame_at(1.04)[1]) == 26
    assert far.stats == {"reads": 1, "seeks": 1, "hits": 0, "misses": 1}
    assert FrameSampler(short, forward_limit_s=0).forward_limit == 2  # never less than two frames


def test_the_cache_keeps_the_most_recently_used_frames(short):
    """Two frames of room: read 0, 1, then 0 again (a hit: 0 becomes the newest), then 2 evicts 1, the oldest.
    0 is still a hit; 1 is read again."""
    fs = FrameSampler(short, max_long_side=32, cache_frames=2)
    for t in (0.0, 0.04, 0.0, 0.08):
        fs.frame_at(t)
    assert list(fs._cache) == [0, 2] and fs.stats["hits"] == 1 and fs.stats["misses"] == 3
    fs.frame_at(0.0)
    assert fs.stats["hits"] == 2
    fs.frame_at(0.04)
    assert fs.stats["misses"] == 4 and list(fs._cache) == [0, 1]
    assert fs.cache_nbytes == 2 * 18 * 32 * 3  # 32x18 RGB frames, 1728 bytes each


@pytest.mark.parametrize("budget, kept", [(2 * 1728, [1, 2]), (2 * 1728 - 1, [2]), (1, [2])])
def test_the_cache_byte_budget_keeps_at_least_the_newest_frame(short, budget, kept):
    """Each 32x18 frame is 1728 bytes: two fit in 3456 bytes, one in 3455; a budget below one frame still keeps one."""
    fs = FrameSampler(short, max_long_side=32, cache_bytes=budget)
    for t in (0.0, 0.04, 0.08):
        fs.frame_at(t)
    assert list(fs._cache) == kept and fs.cache_nbytes == 1728 * len(kept)
    fs.close()
    assert fs.cache_nbytes == 0 and not fs._cache


def test_a_frame_count_that_overstates_the_file_is_corrected(short):
    """The file has 100 frames (0..99). Told 105, a request past the end tries 104, 103, 102, 101, 100 (4 steps back,
    allowed while steps <= 2 * forward_limit = 4) and returns 99; the count becomes 100 and the duration 4.0 s."""
    fs = FrameSampler(short, max_long_side=32, forward_limit_s=0)
    fs.frame_count = 105
    ft, img = fs.frame_at(9.0)
    assert (ft, read_code(img), fs.frame_count, fs.duration) == (3.96, 99, 100, 4.0)


def test_a_frame_count_overstated_past_the_limit_is_an_error(short):
    """Told 106: 105 .. 101 fail, then 100 after the 5th step back, which exceeds 4: one error naming index 100."""
    fs = FrameSampler(short, max_long_side=32, forward_limit_s=0)
    fs.frame_count = 106
    with pytest.raises(SamplingError, match=r"four\.mp4: no decodable frame at or before index 100$"):
        fs.frame_at(9.0)


def test_stepping_back_reuses_a_cached_frame(short):
    """Frame 99 is cached (the capture is then at 100); told 103, frame 102 is read on from 100, whose grab fails
    (no read); 101 and 100 are sought and their reads fail (2 reads); 99 is then found in the cache (a hit)."""
    fs = FrameSampler(short, max_long_side=32)
    fs.frame_at(3.96)
    reads = fs.stats["reads"]
    fs.frame_count = 103
    assert fs.frame_at(9.0)[0] == 3.96
    assert fs.stats["hits"] == 1 and fs.stats["reads"] == reads + 2


def test_files_that_are_not_videos_are_refused(tmp_path):
    with pytest.raises(SamplingError, match=r"nope\.mp4: video file not found$"):
        FrameSampler(tmp_path / "nope.mp4")
    bad = tmp_path / "text.mp4"
    bad.write_text("not a video")
    with pytest.raises(SamplingError, match=r"text\.mp4: OpenCV cannot open the video$"):
        FrameSampler(bad)


@pytest.fixture
def ramp(tmp_path) -> Path:
    """1 s of 8 kHz float audio whose sample n is n / 8000 (exact in float32 at these sizes)."""
    path = tmp_path / "ramp.WAV"
    sf.write(path, (np.arange(8000) / 8000).astype(np.float32), 8000, subtype="FLOAT")
    return path


def test_a_chunk_is_the_samples_of_t0_to_t1(ramp):
    """At 8 kHz, [0.5, 0.75) is samples 4000..5999; [0.9, 1.2) holds 800 real samples then 1600 zeros (padded) or
    only the 800 (not padded); a negative start starts at 0; t1 < t0 is refused."""
    a = AudioSampler(ramp, rate=8000)
    assert a.duration == 1.0 and a.samples.dtype == np.float32
    c = a.chunk(0.5, 0.75)
    assert len(c) == 2000 and c[0] == 0.5 and c[-1] == np.float32(5999 / 8000)
    padded = a.chunk(0.9, 1.2)
    assert len(padded) == 2400 and padded[799] == np.float32(7999 / 8000) and not padded[800:].any()
    assert padded.dtype == np.float32
    assert len(a.chunk(0.9, 1.2, pad=False)) == 800
    assert len(a.chunk(-0.5, 0.25)) == 2000 and a.chunk(-0.5, 0.25)[0] == 0.0
    assert len(a.chunk(0.3, 0.3)) == 0
    with pytest.raises(ValueError, match=r"t1 \(0\.2\) < t0 \(0\.3\)"):
        a.chunk(0.3, 0.2)


def test_stereo_is_averaged_and_other_rates_resampled(tmp_path):
    """Left 0.5, right -0.25: mono 0.125. Samples 0, 1, 2, 3 at 8 kHz resampled to 16 kHz: 8 samples at 1/16000 s,
    linear between neighbours and held after the last: 0, 0.5, 1, 1.5, 2, 2.5, 3, 3."""
    st = tmp_path / "st.flac"
    sf.write(st, np.tile([[0.5, -0.25]], (16, 1)), 16000, subtype="PCM_16")
    assert AudioSampler(st).samples.tolist() == [0.125] * 16 and AudioSampler(st).rate == 16000
    wav = tmp_path / "st.wav"  # a WAV is read by soundfile too (PyAV's downmix would give 0.25 / sqrt(2) = 0.1768)
    sf.write(wav, np.tile([[0.5, -0.25]], (16, 1)), 16000, subtype="PCM_16")
    assert AudioSampler(wav).samples.tolist() == [0.125] * 16
    ogg = tmp_path / "st.ogg"  # and an OGG (lossy Vorbis: within 0.02 of 0.125, far from PyAV's 0.1768)
    sf.write(ogg, np.tile([[0.5, -0.25]], (16000, 1)), 16000, format="OGG", subtype="VORBIS")
    assert abs(float(np.median(AudioSampler(ogg).samples)) - 0.125) < 0.02
    x = np.array([0, 1, 2, 3], np.float32)
    assert _resample(x, 8000, 16000).tolist() == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3]
    assert _resample(x.astype(np.float64), 8000, 16000).dtype == np.float32
    assert _resample(x, 16000, 8000).tolist() == [0, 2]
    same = _resample(np.array([1, 2], np.float64), 8000, 8000)
    assert same.dtype == np.float32 and same.tolist() == [1, 2]
    assert _resample(np.zeros(0), 8000, 16000).dtype == np.float32


def test_audio_files_that_cannot_be_read_are_refused(tmp_path):
    """A missing file, a file PyAV cannot decode and a video without an audio track: one SamplingError each."""
    with pytest.raises(SamplingError, match=r"gone\.wav: audio file not found$"):
        AudioSampler(tmp_path / "gone.wav")
    junk = tmp_path / "junk.mp4"
    junk.write_text("not media")
    with pytest.raises(SamplingError, match=r"junk\.mp4: cannot decode audio \(InvalidDataError: "):
        AudioSampler(junk).samples
    import cv2
    mute = tmp_path / "mute.mp4"
    w = cv2.VideoWriter(str(mute), cv2.VideoWriter_fourcc(*"mp4v"), 10, (32, 32))
    for _ in range(5):
        w.write(np.zeros((32, 32, 3), np.uint8))
    w.release()
    with pytest.raises(SamplingError, match=r"mute\.mp4: the file has no audio track$"):
        AudioSampler(mute).samples


def test_the_audio_track_of_a_video_is_decoded_at_the_asked_rate(short):
    """The clip's 4 s track at 8 kHz: about 32000 samples (the AAC encoder pads a few ms)."""
    a = AudioSampler(short, rate=8000)
    assert a.rate == 8000 and a.samples.dtype == np.float32
    assert abs(len(a.samples) - 32000) < 800


def test_other_files_are_decoded_by_pyav_to_mono_float_at_the_asked_rate(tmp_path):
    """A stereo 16-bit WAV under a name soundfile is not asked to read (.bin): FFmpeg's downmix multiplies each
    channel by 1/sqrt(2): (0.5 - 0.25) / sqrt(2) = 0.176777. 1600 samples at 16 kHz (0.1 s) are 800 at 8 kHz. A
    track without a sample gives an empty float32 array."""
    src = tmp_path / "st.wav"
    sf.write(src, np.tile([[0.5, -0.25]], (1600, 1)), 16000, subtype="PCM_16")
    (tmp_path / "st.bin").write_bytes(src.read_bytes())
    for rate, n in ((16000, 1600), (8000, 800)):
        s = AudioSampler(tmp_path / "st.bin", rate=rate).samples
        assert s.dtype == np.float32 and len(s) == n and np.allclose(s, 0.25 / np.sqrt(2), atol=1e-4)
    sf.write(tmp_path / "empty.wav", np.zeros((0, 1)), 16000, subtype="PCM_16")
    (tmp_path / "empty.bin").write_bytes((tmp_path / "empty.wav").read_bytes())
    empty = AudioSampler(tmp_path / "empty.bin").samples
    assert empty.dtype == np.float32 and len(empty) == 0 and AudioSampler(tmp_path / "empty.bin").duration == 0.0


def test_video_audio_without_pyav_is_one_line_naming_the_package(short, monkeypatch):
    monkeypatch.setitem(sys.modules, "av", None)  # `import av` now raises ImportError
    with pytest.raises(SamplingError, match=r"^reading audio from video files needs PyAV: pip install av$"):
        AudioSampler(short).samples


def _mp4v(path: Path, fps: float, frames: int) -> Path:
    """A tiny mp4v video written by OpenCV at `fps`: frame k is a flat grey of level 100 + 100 k (200 at most)."""
    import cv2
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (32, 32))
    for k in range(frames):
        w.write(np.full((32, 32, 3), min(200, 100 + 100 * k), np.uint8))
    w.release()
    return path


@pytest.mark.parametrize("fps, usable", [(1000, True), (1001, False), (2000, False)])
def test_a_frame_rate_above_1000_is_refused(tmp_path, fps, usable):
    path = _mp4v(tmp_path / f"f{fps}.mp4", fps, 3)
    if usable:
        assert FrameSampler(path).fps == 1000.0
    else:
        with pytest.raises(SamplingError, match=rf"f{fps}\.mp4: the file reports no usable frame rate \({fps}\.0\)$"):
            FrameSampler(path)


def test_a_two_frame_clip_with_an_overstated_count_steps_back_to_its_last_frame(tmp_path):
    """Two frames at 25 fps (forward limit 100), told 4: frame 3 fails (read on from 0: the grab of 2 fails), 2 is
    sought and fails, 1 is sought and decodes: frame 1 at 0.04 s, grey 200 (give or take the codec), count now 2."""
    fs = FrameSampler(_mp4v(tmp_path / "two.mp4", 25, 2))
    fs.frame_count = 4
    ft, img = fs.frame_at(5.0)
    assert ft == 0.04 and abs(int(img[16, 16, 0]) - 200) < 8 and fs.frame_count == 2


def test_the_defaults_bound_the_cache_and_the_read_on(short):
    """512 px long side (the 320x180 clip is kept as is), 64 frames, 64 MiB, 4 s of frames (100 at 25 fps) read on."""
    fs = FrameSampler(short)
    assert (fs.max_long_side, fs.cache_frames, fs.cache_bytes, fs.forward_limit) == (512, 64, 64 * 2**20, 100)
    assert fs.frame_at(0.0)[1].shape == (180, 320, 3)


def test_the_next_frame_is_read_on_and_every_backward_step_seeks(short):
    """After frame 25 the capture is at 26: asking 26 reads on; going back to 10 and then 5 seeks twice."""
    fs = FrameSampler(short, max_long_side=32)
    fs.frame_at(1.0)
    assert read_code(fs.frame_at(1.04)[1]) == 26 and fs.stats["seeks"] == 0
    fs.frame_at(0.4)
    fs.frame_at(0.2)
    assert fs.stats["seeks"] == 2 and fs.stats["reads"] == 4


def test_resizing_averages_the_pixels_it_merges():
    """8x8 black with one white pixel at the top left, to 2x2: each output pixel covers 4x4 = 16 input pixels, so the
    top left one is 255 / 16 = 15.9 -> 16 (area averaging; a bilinear sample there would read 0). A 3 px wide,
    1000 px tall image to 100: the width rounds to 0 and is kept at 1 px."""
    img = np.zeros((8, 8, 3), np.uint8)
    img[0, 0] = 255
    assert resize_long_side(img, 2)[:, :, 0].tolist() == [[16, 0], [0, 0]]
    assert resize_long_side(np.zeros((1000, 3, 3), np.uint8), 100).shape == (100, 1, 3)


def test_an_image_file_is_a_one_frame_stream_of_unknown_length(tmp_path):
    """OpenCV opens a PNG as a stream (25 fps, no frame count): no count, no duration; every time shows the image."""
    import cv2
    png = tmp_path / "still.png"
    cv2.imwrite(str(png), np.full((8, 8, 3), 90, np.uint8))
    fs = FrameSampler(png)
    assert (fs.frame_count, fs.duration) == (None, None)
    ft, img = fs.frame_at(0.0)
    assert ft == 0.0 and img[0, 0].tolist() == [90, 90, 90]


def test_a_one_frame_video_has_a_count_and_a_duration(tmp_path):
    """One frame at 25 fps: count 1, duration 1 / 25 = 0.04 s."""
    fs = FrameSampler(_mp4v(tmp_path / "one.mp4", 25, 1))
    assert (fs.frame_count, fs.duration) == (1, 0.04)


@pytest.mark.parametrize("asked, kept", [(1, 1), (0, 1)])
def test_a_cache_of_one_frame_keeps_the_newest(short, asked, kept):
    fs = FrameSampler(short, max_long_side=32, cache_frames=asked)
    fs.frame_at(0.0)
    fs.frame_at(0.04)
    assert fs.cache_frames == kept and list(fs._cache) == [1]
