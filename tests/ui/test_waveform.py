"""Waveform peaks for the workbench timeline: bin maxima on hand-worked samples, and a click in a real
audio file lands in the bin of its time."""
import base64

import numpy as np
import soundfile as sf

from ibench_ui.waveform import file_peaks_b64, peaks


def test_peaks_hand_worked():
    # rate 4 Hz, 2 bins a second -> bins of 2 samples: max|.| = .5 and 1 -> scaled to 255: 127.5 -> 128, 255
    assert peaks(np.array([0.0, 0.5, -1.0, 0.25]), 4, 2).tolist() == [128, 255]
    # a ragged tail is padded with silence: [0.2] alone in the last bin -> .2/.4*255 = 127.5 -> 128
    assert peaks(np.array([0.4, 0.1, 0.2]), 4, 2).tolist() == [255, 128]
    assert peaks(np.zeros(8), 4, 2).tolist() == [0, 0, 0, 0]
    assert peaks(np.zeros(0), 4, 2).tolist() == []


def test_a_click_lands_in_the_bin_of_its_time(tmp_path):
    rate = 8000
    x = np.zeros(rate * 2, np.float32)
    x[int(1.234 * rate):int(1.234 * rate) + 40] = 0.8  # a 5 ms click at 1.234 s
    sf.write(tmp_path / "click.wav", x, rate)
    raw = np.frombuffer(base64.b64decode(file_peaks_b64(str(tmp_path / "click.wav"))), np.uint8)
    assert len(raw) == 200  # 2 s at 100 bins a second
    assert raw[123] == 255 and raw.sum() == 255  # bin [1.23, 1.24) holds the whole click
    assert file_peaks_b64(str(tmp_path / "missing.wav")) == ""
