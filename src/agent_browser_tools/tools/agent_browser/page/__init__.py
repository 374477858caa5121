"""What the page did around an action: clicks, navigation, overlays, snapshots, page tools."""
