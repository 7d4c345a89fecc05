"""`python -m ember.run script.py` runs unchanged PyTorch scripts on ember.

Each script in tests/scripts/ is an ordinary PyTorch program. It runs twice in fresh processes,
once on real PyTorch and once under `python -m ember.run`, and the printed results must agree
(ember's reprs say "ember." where PyTorch's say "torch.").
"""
import os
import pathlib
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def _python(*args, cwd=None, **env):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, check=False,
                          cwd=cwd, env={**os.environ, **env})


def _run(*args, cwd=None):
    return _python("-m", "ember.run", *args, cwd=cwd)


def _same_output_as_torch(*args):
    pytest.importorskip("torch")
    ours = _run(*args)
    # One OpenMP thread for the oracle: on a busy machine PyTorch's spinning workers make the
    # small scripts several times slower, and at these sizes its results do not depend on it.
    theirs = _python(*args, OMP_NUM_THREADS="1")
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.replace("ember.", "torch.") == theirs.stdout
    return ours.stdout


@pytest.mark.parametrize("script", [
    "tensors_basics.py", "autograd_basics.py", "linear_regression.py", "views_indexing.py",
    "mlp_classifier.py", "func_and_checkpoint.py",
    "reductions.py", "custom_function.py", "nn_cnn_classifier.py", "nn_sequence_model.py",
    "examples_mnist.py", "gpt_training.py",
    "examples_dcgan.py", "examples_vae.py", "examples_word_language_model.py",
    "examples_time_sequence_prediction.py", "examples_reinforce.py",
    "mingpt_sort.py", "examples_super_resolution.py", "examples_fast_neural_style.py",
    "examples_gcn_gat.py", "examples_translation.py", "examples_imagenet.py",
    "examples_vision_transformer.py", "examples_small_programs.py", "seq2seq_resume.py",
    "mixture_density_swa.py", "transformer_stream_loader.py", "gradient_penalty_func.py",
    "data_and_printing.py", "kv_cache_generation.py", "multiprocessing_spawn.py",
    "library_idioms.py", "examples_mnist_hogwild.py", "multiprocessing_queue_sharing.py",
    "ddp_training.py", "whole_model_pickle.py", "sparse_adjacency_numpy.py",
])
def test_script_prints_what_pytorch_prints(script):
    out = _same_output_as_torch(SCRIPTS / script)
    assert out.strip()


def test_script_arguments_reach_the_script():
    out = _same_output_as_torch(SCRIPTS / "linear_regression.py", "--steps", "21", "--lr", "0.05")
    assert "step  20" in out and "step  40" not in out
    out = _same_output_as_torch(SCRIPTS / "tensors_basics.py", "a", "b")
    assert "['a', 'b']" in out


def test_module_mode_runs_a_package_entry_point():
    done = _run("-m", "pkg_entry", "x", cwd=SCRIPTS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "__main__ ['x'] [0.0, 2.0, 4.0, 6.0] True"


@pytest.mark.parametrize("script,missing", [
    ("missing_module.py", "torch.definitely_missing"),
    ("missing_export.py", "torch.export"),
    ("missing_distributed.py", "torch.distributed.pipelining"),
])
def test_missing_module_is_a_clear_import_error(script, missing):
    done = _run(SCRIPTS / script)
    if done.returncode == 0:
        pytest.skip(f"ember has {missing} now")
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError") and f"'{missing}'" in last, done.stderr


def test_script_exceptions_and_exit_codes_pass_through(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("import sys, torch\nprint(__name__, __file__.endswith('fails.py'))\n"
                      "sys.exit(int(torch.tensor(3).item()))\n")
    done = _run(script)
    assert done.returncode == 3 and done.stdout.strip() == "__main__ True", done.stderr
    script.write_text("import torch\ntorch.zeros(2).view(3)\n")
    done = _run(script)
    assert done.returncode == 1 and "RuntimeError" in done.stderr


def test_torch_resolves_to_ember_in_process():
    code = ("import ember.utils; ember.utils.alias_torch(); import torch, ember; "
            "import torch.autograd as ag; from torch.autograd import Function; "
            "print(torch is ember, ag is ember.autograd, Function is ember.autograd.Function)")
    done = _python("-c", code)
    assert done.stdout.strip() == "True True True", done.stderr


def test_unalias_gives_the_real_torch_back():
    pytest.importorskip("torch")
    code = ("import ember.utils as u; u.alias_torch(); import torch; a = torch.__name__; "
            "u.unalias_torch(); import torch; print(a, torch.__name__)")
    done = _python("-c", code)
    assert done.stdout.strip() == "ember torch", done.stderr


def test_usage_without_arguments():
    done = _run()
    assert done.returncode == 2 and "usage" in done.stderr
    done = _run("--help")
    assert done.returncode == 0 and "usage" in done.stdout
