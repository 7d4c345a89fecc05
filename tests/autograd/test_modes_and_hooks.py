"""Anomaly detection, saved-tensor hooks and forward-mode AD, against PyTorch."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def rounded(t):
    return None if t is None else np.round(np.asarray(t.detach().numpy(), np.float64), 5).tolist()


def test_anomaly_mode_names_the_node_that_made_nan():
    for lib in (ember, torch):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            mode = lib.autograd.detect_anomaly()
        with mode:
            assert lib.is_anomaly_enabled()
            y = (x / x).sum()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(RuntimeError, match="Function 'DivBackward0' returned nan "
                                                       "values in its 1th output"):
                    y.backward()
        assert not lib.is_anomaly_enabled()


def test_anomaly_warning_shows_the_forward_call():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    with ember.autograd.set_detect_anomaly(True):
        y = (x / x).sum()
        with pytest.warns(UserWarning, match="Error detected in DivBackward0") as record:
            with pytest.raises(RuntimeError):
                y.backward()
    assert any("test_anomaly_warning_shows_the_forward_call" in str(w.message) for w in record)


def test_set_detect_anomaly_check_nan_off_lets_nan_through():
    def run(lib):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            assert not lib.is_anomaly_check_nan_enabled()
            (x / x).sum().backward()
        return np.isnan(x.grad.numpy()).tolist()
    assert run(ember) == run(torch)


def test_saved_tensor_hooks_pack_and_unpack():
    def run(lib):
        packed, unpacked = [], []

        def pack(t):
            packed.append(tuple(t.shape))
            return t * 2          # formulas will see the doubled value

        def unpack(t):
            unpacked.append(tuple(t.shape))
            return t
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (a * b).sum()
        y.backward()
        return sorted(packed), sorted(unpacked), rounded(a.grad), rounded(b.grad)
    assert run(ember) == run(torch)


def test_saved_tensor_hooks_apply_to_custom_functions():
    def run(lib):
        seen = []

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append("pack") or t,
                                                     lambda t: seen.append("unpack") or t):
            y = Square.apply(x).sum()
        y.backward()
        return seen, rounded(x.grad)
    assert run(ember) == run(torch)


def test_save_on_cpu_gives_the_same_gradients():
    def run(lib):
        x = lib.tensor([0.5, 1.5, -2.0], requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            y = (x.exp() * x).sum()
        y.backward()
        return rounded(x.grad)
    assert run(ember) == run(torch)


def test_disable_saved_tensors_hooks_refuses_new_hooks():
    for lib in (ember, torch):
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass


def test_forward_ad_tangents_match_pytorch():
    def run(lib):
        fw = lib.autograd.forward_ad
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        t = lib.tensor([[0.5, -1.0], [2.0, 1.0]])
        w = lib.tensor([[1.0, -2.0], [0.5, 3.0]])
        with fw.dual_level():
            d = fw.make_dual(x, t)
            y = (d * d * w).sum(0) / 3.0 + d.exp().mean()
            z = d.reshape(4) * 2
            z.mul_(3.0)
            primal, tangent = fw.unpack_dual(y)
            no_tangent = fw.unpack_dual(x).tangent
            return (rounded(primal), rounded(tangent), rounded(fw.unpack_dual(z).tangent),
                    no_tangent)
    assert run(ember) == run(torch)


def test_forward_ad_needs_a_level_and_matching_shapes():
    for lib in (ember, torch):
        fw = lib.autograd.forward_ad
        with pytest.raises(RuntimeError):
            fw.make_dual(lib.ones(2), lib.ones(2))
        with fw.dual_level():
            with pytest.raises(RuntimeError, match="different size"):
                fw.make_dual(lib.ones(2), lib.ones(3))


def test_inference_tensors_behave_as_in_pytorch():
    def run(lib):
        seen = []
        with lib.inference_mode():
            made, computed, literal = lib.ones(2), lib.ones(2) * 2, lib.tensor([1.0])
            made.add_(1)                     # allowed inside the mode
        seen.append((made.is_inference(), computed.is_inference(), literal.is_inference(),
                     lib.ones(1).is_inference()))
        with lib.inference_mode(False):
            seen.append(lib.ones(1).is_inference())
        weight = lib.ones(2, requires_grad=True)
        for attempt in (lambda: computed.add_(1), lambda: computed.requires_grad_(),
                        lambda: weight * computed):
            try:
                attempt()
                seen.append("no error")
            except RuntimeError as error:
                seen.append(str(error).split(".")[0])
        seen.append((weight + computed).requires_grad)    # add saves nothing: allowed
        return seen
    assert run(ember) == run(torch)


def test_grad_fn_of_a_stale_view_is_rebuilt():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        view = y[0:1]
        before = view.grad_fn.name()
        y.mul_(2)
        return before, view.grad_fn.name()
    assert run(ember) == run(torch)
