from memtui.cli import main

if __name__ == "__main__":  # importing the module (a walk over the package) starts nothing
    raise SystemExit(main())
