import ArgumentParser
CtxDebug.main()
