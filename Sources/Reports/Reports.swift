// Report renderers (see issues 5 and 6).
