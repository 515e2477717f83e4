# SPDX-License-Identifier: MIT
# FindLibAIO - the Linux kernel AIO library (libaio).
# Defines LibAIO_FOUND, LibAIO_INCLUDE_DIR, LibAIO_LIBRARY and the imported
# target LibAIO::LibAIO. A libaio.h without struct iocb's aio_rw_flags (libaio
# before 0.3.111) counts as not found: the libaio engine needs that field for
# RWF_DSYNC write-through, and without libaio it builds as unavailable.
find_path(LibAIO_INCLUDE_DIR NAMES libaio.h)
find_library(LibAIO_LIBRARY NAMES aio)
if(LibAIO_INCLUDE_DIR)
  include(CheckStructHasMember)
  set(CMAKE_REQUIRED_INCLUDES ${LibAIO_INCLUDE_DIR})
  check_struct_has_member("struct iocb" aio_rw_flags libaio.h LibAIO_HAS_RW_FLAGS LANGUAGE C)
  unset(CMAKE_REQUIRED_INCLUDES)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibAIO
  REQUIRED_VARS LibAIO_LIBRARY LibAIO_INCLUDE_DIR LibAIO_HAS_RW_FLAGS)
if(LibAIO_FOUND AND NOT TARGET LibAIO::LibAIO)
  add_library(LibAIO::LibAIO UNKNOWN IMPORTED)
  set_target_properties(LibAIO::LibAIO PROPERTIES
    IMPORTED_LOCATION "${LibAIO_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LibAIO_INCLUDE_DIR}")
endif()
mark_as_advanced(LibAIO_INCLUDE_DIR LibAIO_LIBRARY)
