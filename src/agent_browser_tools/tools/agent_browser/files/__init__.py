"""Files a call makes: artifacts, recordings, spills and their receipts."""
