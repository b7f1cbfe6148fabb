"""mkdocs hook: adds `reference.md`, rendered from the code (`tools.docs_site.reference`), to the site.

The page exists only in the built site: nothing is written into docs/ or anywhere in the repository.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from tools.docs_site.reference import reference_page

GENERATED = "reference.md"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if files.get_file_from_path(GENERATED) is not None:
        raise ValueError(f"docs/{GENERATED} is generated at build time; remove the file of that name")
    files.append(File.generated(config, GENERATED, content=reference_page()))
    return files
