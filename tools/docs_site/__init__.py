"""The documentation site's build-time pieces (mkdocs.yml loads `hook`): pages generated from the code."""
