from summarizer.cli.main import main

main()
