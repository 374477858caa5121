"""What an element action did: read back, judged, and the way out when it did not take."""
