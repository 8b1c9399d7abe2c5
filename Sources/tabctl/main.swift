print("tabctl: not built yet")
