"""The ``lejepa-wm`` command line: one module per subcommand, and nothing else of the package.

:mod:`.cli` builds the parser and is the one error boundary; :mod:`.options`
declares the options several subcommands share, :mod:`.exits` the exit
statuses. Each subcommand module (:mod:`.verify`, :mod:`.run`, :mod:`.sweep`,
:mod:`.report`, :mod:`.audit_lean`, :mod:`.reproduce`) defines
``add_arguments(parser)`` and ``main(args) -> int``: it parses, calls the
library, prints and returns the exit status. The library never imports this
package.
"""

__all__: list[str] = []
