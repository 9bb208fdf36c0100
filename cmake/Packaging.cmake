# `cpack -G DEB` in the build directory: one etkit_<version>_<arch>.deb with
# the tools, man pages, completions, static libraries, headers, schemas and
# the CMake/pkg-config files, installed under /usr.
set(ETKIT_PACKAGE_MAINTAINER "etkit maintainers <etkit-maintainers@invalid>"
    CACHE STRING "Maintainer field of the .deb (Name <email>)")

set(CPACK_PACKAGE_NAME etkit)
set(CPACK_PACKAGE_VENDOR etkit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${ETKIT_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "developer tools for ExecuTorch programs, ETDumps and ETRecords")
# One paragraph per line: CPack writes each as a continuation line of the
# control file's Description.
set(CPACK_PACKAGE_DESCRIPTION "Native tools for ExecuTorch artifacts, without Python or PyTorch:
et-run runs .pte programs on the host and writes ETDumps;
et-dump-decode converts programs, ETDumps and bundled programs to JSON and back;
et-record-inspect reads ETRecords; et-inspect prints the Inspector's
per-operator tables and reports; et-compare compares outputs, intermediates
and timings; et-graph draws program graphs; et-fleet tabulates, compares
and gates many ETDumps at once (device labs, CI histories).
Also the static C++ libraries behind them, with headers, CMake and
pkg-config files.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Runtime dependencies of the tools (libzip4, libsqlite3-0, libstdc++6, ...) from
# dpkg-shlibdeps, which reads the local package database: works offline.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Building against the libraries needs the headers of their dependencies;
# et-graph's SVG/PNG output runs Graphviz's dot.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "graphviz")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libflatbuffers-dev, libzip-dev, libsqlite3-dev, pkg-config, cmake")

include(CPack)
