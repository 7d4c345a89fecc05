# Global switches and their getters, good values and bad ones: prints results and error classes.
import torch


def run(label, call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001  (the class is what this prints)
        result = type(error).__name__
    print(f"{label} | {result}")


run("deterministic default", lambda: (torch.are_deterministic_algorithms_enabled(),
                                      torch.is_deterministic_algorithms_warn_only_enabled(),
                                      torch.get_deterministic_debug_mode()))
run("deterministic on", lambda: (torch.use_deterministic_algorithms(True),
                                 torch.are_deterministic_algorithms_enabled(),
                                 torch.get_deterministic_debug_mode()))
run("warn_only", lambda: (torch.use_deterministic_algorithms(True, warn_only=True),
                          torch.is_deterministic_algorithms_warn_only_enabled(),
                          torch.get_deterministic_debug_mode()))
run("debug mode error", lambda: (torch.set_deterministic_debug_mode("error"),
                                 torch.are_deterministic_algorithms_enabled(),
                                 torch.is_deterministic_algorithms_warn_only_enabled()))
run("debug mode 0", lambda: (torch.set_deterministic_debug_mode(0),
                             torch.are_deterministic_algorithms_enabled()))
run("debug mode bad str", lambda: torch.set_deterministic_debug_mode("loud"))
run("debug mode 3", lambda: torch.set_deterministic_debug_mode(3))
run("debug mode float", lambda: torch.set_deterministic_debug_mode(1.0))
run("mode not bool", lambda: torch.use_deterministic_algorithms(1))
run("warn_only not bool", lambda: torch.use_deterministic_algorithms(True, warn_only=1))
run("still off", lambda: torch.are_deterministic_algorithms_enabled())

run("default dtype", lambda: torch.get_default_dtype())
run("float64 default", lambda: (torch.set_default_dtype(torch.float64), torch.tensor([1.0]).dtype,
                                torch.tensor([1j]).dtype, torch.arange(2.0).dtype,
                                (torch.tensor([1]) / 2).dtype, torch.get_default_dtype()))
run("back to float32", lambda: (torch.set_default_dtype(torch.float32), torch.ones(1).dtype))
run("int default", lambda: torch.set_default_dtype(torch.int32))
run("str default", lambda: torch.set_default_dtype("float64"))

run("default device", lambda: torch.get_default_device())
run("device scope", lambda: [(torch.zeros(1).device.type, torch.get_default_device().type)
                             for _ in [torch.device("meta").__enter__()]]
    + [torch.device("meta").__exit__(None, None, None)])
run("after scope", lambda: torch.zeros(1).device)
run("bad default device", lambda: torch.set_default_device("nope"))

run("matmul precision", lambda: torch.get_float32_matmul_precision())
run("set high", lambda: (torch.set_float32_matmul_precision("high"),
                         torch.get_float32_matmul_precision(),
                         torch.set_float32_matmul_precision("highest")))
run("warn always", lambda: (torch.is_warn_always_enabled(), torch.set_warn_always(True),
                            torch.is_warn_always_enabled(), torch.set_warn_always(False)))
run("warn always not bool", lambda: torch.set_warn_always(1))
run("threads", lambda: (torch.set_num_threads(1), torch.get_num_threads()))
run("threads zero", lambda: torch.set_num_threads(0))
run("threads float", lambda: torch.set_num_threads(1.5))
run("threads bool", lambda: torch.set_num_threads(True))
run("interop threads", lambda: torch.get_num_interop_threads() >= 1)

run("seed", lambda: (torch.manual_seed(7).initial_seed(), torch.initial_seed()))
run("same draws", lambda: (torch.manual_seed(3), a := torch.rand(4), torch.manual_seed(3),
                           torch.equal(a, torch.rand(4)))[-1])
run("seed()", lambda: isinstance(torch.seed(), int) and torch.initial_seed() == torch.initial_seed())
run("printoptions", lambda: (torch.set_printoptions(precision=2),
                             repr(torch.tensor([1.23456, 2.0])),
                             torch.set_printoptions(profile="default"),
                             repr(torch.tensor([1.23456, 2.0]))))
run("printoptions sci", lambda: (torch.set_printoptions(sci_mode=True),
                                 repr(torch.tensor([1.5, 250.0])),
                                 torch.set_printoptions(profile="default")))
