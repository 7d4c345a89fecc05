"""The README's main job, `python -m ember.demo`, runs from a fresh process and fits its line."""
import re
import subprocess
import sys


def test_demo_runs_and_fits_the_line():
    done = subprocess.run([sys.executable, "-m", "ember.demo"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    fitted = re.search(r"fitted y = ([-\d.]+) x \+ ([-\d.]+)", done.stdout)
    assert fitted, done.stdout
    assert abs(float(fitted.group(1)) - 3) < 0.1 and abs(float(fitted.group(2)) + 1) < 0.1
    assert "d2/dt2 = tensor([ 3.,  6., 12.])" in done.stdout
