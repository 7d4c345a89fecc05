# Device modules as a CPU-only user sees them: torch.cpu, torch.cuda, torch.accelerator.
import types

import torch


def run(label, call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001  (the class is what this prints)
        result = type(error).__name__
    print(f"{label} | {result}")


run("cuda", lambda: (torch.cuda.is_available(), torch.cuda.device_count()))
run("cpu", lambda: (torch.cpu.is_available(), torch.cpu.device_count(),
                    torch.cpu.current_device(), torch.cpu.synchronize()))
run("accelerator", lambda: (torch.accelerator.current_accelerator(),
                            torch.accelerator.is_available(), torch.accelerator.device_count()))
run("get_device_module cpu", lambda: torch.get_device_module("cpu") is torch.cpu)
run("get_device_module device", lambda: torch.get_device_module(torch.device("cpu")) is torch.cpu)
run("get_device_module cuda", lambda: torch.get_device_module("cuda:0") is torch.cuda)
run("get_device_module None", lambda: torch.get_device_module() is torch.cpu)
run("get_device_module meta", lambda: torch.get_device_module("meta"))
run("get_device_module int", lambda: torch.get_device_module(3))
run("register existing", lambda: torch._register_device_module("cuda", types.ModuleType("m")))
run("register bad type", lambda: torch._register_device_module("foo", types.ModuleType("m")))
run("cuda seed no-op", lambda: (torch.cuda.manual_seed(0), torch.cuda.manual_seed_all(0)))
run("import torch.cuda", lambda: __import__("torch.cuda").cuda is torch.cuda)
run("version", lambda: sorted(n for n in ("cuda", "debug", "git_version", "hip")
                              if hasattr(torch.version, n)))
run("version.cuda", lambda: torch.version.cuda)
run("config", lambda: isinstance(torch.__config__.show(), str))
