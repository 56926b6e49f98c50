"""eutaxy.engine."""
