import roma
import torch
from _show import show

rotvec = torch.tensor([[0.1, -0.2, 0.3], [1.0, 0.5, -0.5]], dtype=torch.float64)
R = roma.rotvec_to_rotmat(rotvec)
show("rotmat", R)
q = roma.rotvec_to_unitquat(rotvec)
show("quat", q)
show("back", roma.unitquat_to_rotvec(q))
show("euler", roma.rotmat_to_euler("xyz", R))
show("special procrustes", roma.special_procrustes(R + 0.05))
show("slerp", roma.unitquat_slerp(q[0], q[1], torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64)))
show("geodesic", roma.rotmat_geodesic_distance(R[0], R[1]))
rig = roma.Rigid(R[0], torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
show("rigid apply", rig.apply(torch.ones(3, dtype=torch.float64)))
show("compose", roma.quat_product(q[0], q[1]))
