print("tabd: not built yet")
