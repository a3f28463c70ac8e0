// The SurfJournal sample app's data layer (see issue 5).
