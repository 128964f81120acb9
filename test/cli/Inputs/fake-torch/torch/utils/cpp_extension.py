import os


def include_paths(device_type="cpu"):
    root = os.environ["FAKE_TORCH_ROOT"]
    return [os.path.join(root, "include"), os.path.join(root, "include", "torch", "csrc", "api", "include")]
