"""eutaxy.aws."""
