from kernlint.cli import main

main()
