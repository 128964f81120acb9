def module():
    raise NotImplementedError
