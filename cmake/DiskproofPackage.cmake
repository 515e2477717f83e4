# SPDX-License-Identifier: MIT
# DiskproofPackage.cmake - what "cmake --install" puts where, and the Debian
# package "cpack -G DEB" makes of it (docs/install.md). Included at the end of
# the top-level CMakeLists.txt, after the diskproof target exists.
#
# Of the programs, only the diskproof binary is installed: the test helpers (no_uring,
# pagetool), the benchmark, the unit tests and the fuzz targets have no
# install() rule, so neither "cmake --install" nor the package carries them.
include(GNUInstallDirs)

# "cpack" and "make install" install what is built and never build first:
# test_deb packages the build tree while the rest of the suite runs its
# binary, and a rebuild then (a source edited since) would swap the binary
# under the other tests. Build, then package.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

# The binary. It links only libraries from the system's own directories, so
# CMake gives it no build-tree RPATH to strip, and the installed copy carries
# none (tests/integration/test_install.sh checks with readelf).
install(TARGETS diskproof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The man page, compressed as Debian policy asks (gzip -9n: the -n leaves the
# file's name and time out of the header, so that the same page always
# compresses to the same bytes). Without gzip it is installed as written.
set(DP_MAN_PAGE ${CMAKE_CURRENT_SOURCE_DIR}/docs/diskproof.1)
find_program(DP_GZIP gzip)
if(NOT EXISTS ${DP_MAN_PAGE})
  message(WARNING "docs/diskproof.1 is missing: no man page is installed")
elseif(DP_GZIP)
  set(DP_MAN_GZ ${CMAKE_CURRENT_BINARY_DIR}/diskproof.1.gz)
  add_custom_command(
    OUTPUT ${DP_MAN_GZ}
    COMMAND ${DP_GZIP} -9n -c ${DP_MAN_PAGE} > ${DP_MAN_GZ}
    DEPENDS ${DP_MAN_PAGE}
    COMMENT "Compressing the man page")
  add_custom_target(diskproof_man ALL DEPENDS ${DP_MAN_GZ})
  # README's first command builds the diskproof target alone; the install
  # and the package need the page with it
  add_dependencies(diskproof diskproof_man)
  install(FILES ${DP_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  install(FILES ${DP_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

# Bash completion, where bash-completion loads it on demand by command name.
set(DP_COMPLETION ${CMAKE_CURRENT_SOURCE_DIR}/deploy/bash-completion/diskproof)
if(EXISTS ${DP_COMPLETION})
  install(FILES ${DP_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
else()
  message(WARNING "deploy/bash-completion/diskproof is missing: no completion is installed")
endif()

# The documentation, in the source tree's own layout (README.md beside docs/
# and examples/), so that README's links to docs/*.md, the pages' images and
# the docs' commands on examples/*.ini all hold in the installed copy. The
# built-in profiles (profiles/*.ini) are compiled into the binary ("diskproof
# profiles show NAME" prints one), so they are not installed as files; the
# field cases of examples/ are not built in and go with the docs, where
# Debian keeps examples.
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB DP_DOC_FILES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/docs/*.md
  ${CMAKE_CURRENT_SOURCE_DIR}/docs/*.png)
install(FILES ${DP_DOC_FILES} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
file(GLOB DP_EXAMPLE_FILES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/examples/*.ini)
install(FILES ${DP_EXAMPLE_FILES} DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# The licence, as Debian's machine-readable copyright file
# (/usr/share/doc/diskproof/copyright in the package; LICENSE's text).
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/deploy/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# What other tools read, under PREFIX/share/diskproof (docs/install.md): the
# JSON schemas of every --format json document (docs/schema), the Grafana
# dashboard, the Prometheus scrape example and the Ansible play with its role.
set(DP_DATA_DIR ${CMAKE_INSTALL_DATADIR}/diskproof)
file(GLOB DP_SCHEMA_FILES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/docs/schema/*.schema.json)
install(FILES ${DP_SCHEMA_FILES} DESTINATION ${DP_DATA_DIR}/schema)
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/deploy/grafana/diskproof.json
  ${CMAKE_CURRENT_SOURCE_DIR}/deploy/grafana/README.md DESTINATION ${DP_DATA_DIR}/grafana)
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/deploy/prometheus/diskproof.yml DESTINATION ${DP_DATA_DIR}/prometheus)
# The play's files by name (a run of it leaves inventory.ini and
# fleet-results/ beside them, which are not installed).
set(DP_ANSIBLE ${CMAKE_CURRENT_SOURCE_DIR}/deploy/ansible)
install(FILES ${DP_ANSIBLE}/site.yml ${DP_ANSIBLE}/inventory.example.ini ${DP_ANSIBLE}/README.md
  DESTINATION ${DP_DATA_DIR}/ansible)
install(DIRECTORY ${DP_ANSIBLE}/roles DESTINATION ${DP_DATA_DIR}/ansible FILES_MATCHING PATTERN "*.yml")

# The Debian package: "cpack -G DEB" in the build directory writes
# diskproof_<version>_<arch>.deb there. dpkg-shlibdeps (dpkg-dev) works out
# Depends: from the libraries the binary links; without it CPack leaves
# Depends: empty, so install dpkg-dev and file before packaging.
set(DP_PACKAGE_MAINTAINER "Seed 096e3cad maintainers <maintainers@users.noreply.a-seed-096e3cad.example>"
  CACHE STRING "Maintainer: field of the Debian package")
set(CPACK_PACKAGE_NAME diskproof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${DP_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "storage qualification for database servers")
set(CPACK_PACKAGE_DESCRIPTION "diskproof qualifies storage before a database goes on it: it lays out
database and log files on the volumes a profile names, drives them with
random page reads and writes and write-through log appends through
io_uring, libaio or psync, measures every I/O, checks every page it reads
back, judges each database, volume and run against latency and error
thresholds, and keeps every run in a SQLite file for reports (text, JSON,
CSV, HTML) and before/after comparisons.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# bash-completion is what loads the completion; the page is read with man.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, man-db")
# "cpack" (or "make package") without -G makes the .deb.
set(CPACK_GENERATOR DEB)
include(CPack)
