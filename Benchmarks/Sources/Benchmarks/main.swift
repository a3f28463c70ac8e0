// ctxdebug-bench: what `ctxdebug bench` runs.
BenchCommand.main()
