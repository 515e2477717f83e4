# SPDX-License-Identifier: MIT
# BlockioBpf.cmake - learn's BPF tracing source, optional at build time
# (docs/learn.md, "The BPF source"): with libbpf (pkg-config), clang and
# bpftool, src/learn/blockio.bpf.c is compiled for the BPF target against a
# vmlinux.h that bpftool dumps from the build machine's kernel BTF
# (/sys/kernel/btf/vmlinux; CO-RE relocates it on the machine that runs it),
# a skeleton header is generated, and diskproof_core gets
# DISKPROOF_HAVE_BPF and libbpf. Without any of them nothing is built and
# src/learn/trace.c says "not built into this diskproof".
# -DDP_BPF=OFF leaves the source out on purpose.
option(DP_BPF "build learn's BPF tracing source when libbpf, clang and bpftool are found" ON)
set(DP_BPF_WHY "")
if(DP_BPF)
  pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf)
  find_program(DP_BPF_CLANG NAMES clang clang-19 clang-16 clang-15 clang-14)
  find_program(DP_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin)
  if(NOT LIBBPF_FOUND)
    set(DP_BPF_WHY "libbpf (libbpf-dev) not found")
  elseif(NOT DP_BPF_CLANG)
    set(DP_BPF_WHY "clang not found")
  elseif(NOT DP_BPFTOOL)
    set(DP_BPF_WHY "bpftool not found")
  elseif(NOT EXISTS /sys/kernel/btf/vmlinux)
    set(DP_BPF_WHY "/sys/kernel/btf/vmlinux missing (a kernel without BTF)")
  endif()
else()
  set(DP_BPF_WHY "DP_BPF=OFF")
endif()

if(DP_BPF_WHY)
  message(STATUS "BPF tracing not built: ${DP_BPF_WHY}")
else()
  set(DP_BPF_DIR ${CMAKE_CURRENT_BINARY_DIR}/bpf)
  set(DP_BPF_SRC ${CMAKE_CURRENT_SOURCE_DIR}/src/learn/blockio.bpf.c)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    set(DP_BPF_ARCH x86)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
    set(DP_BPF_ARCH arm64)
  else()
    set(DP_BPF_ARCH ${CMAKE_SYSTEM_PROCESSOR})
  endif()
  add_custom_command(
    OUTPUT ${DP_BPF_DIR}/vmlinux.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${DP_BPF_DIR}
    COMMAND ${DP_BPFTOOL} btf dump file /sys/kernel/btf/vmlinux format c > ${DP_BPF_DIR}/vmlinux.h
    COMMENT "vmlinux.h from the kernel's BTF (bpftool)")
  add_custom_command(
    OUTPUT ${DP_BPF_DIR}/blockio.bpf.o
    COMMAND ${DP_BPF_CLANG} -target bpf -D__TARGET_ARCH_${DP_BPF_ARCH} -g -O2 -Wall -Werror
            -I${DP_BPF_DIR} -I${CMAKE_CURRENT_SOURCE_DIR}/src/learn ${LIBBPF_CFLAGS}
            -c ${DP_BPF_SRC} -o ${DP_BPF_DIR}/blockio.bpf.o
    DEPENDS ${DP_BPF_SRC} ${CMAKE_CURRENT_SOURCE_DIR}/src/learn/blockio.h ${DP_BPF_DIR}/vmlinux.h
    COMMENT "BPF object blockio.bpf.o (clang -target bpf)")
  add_custom_command(
    OUTPUT ${DP_BPF_DIR}/blockio.skel.h
    COMMAND ${DP_BPFTOOL} gen skeleton ${DP_BPF_DIR}/blockio.bpf.o name blockio
            > ${DP_BPF_DIR}/blockio.skel.h
    DEPENDS ${DP_BPF_DIR}/blockio.bpf.o
    COMMENT "BPF skeleton blockio.skel.h (bpftool gen skeleton)")
  add_custom_target(blockio_skel DEPENDS ${DP_BPF_DIR}/blockio.skel.h)
  add_dependencies(diskproof_core blockio_skel)
  target_include_directories(diskproof_core PRIVATE ${DP_BPF_DIR})
  target_compile_definitions(diskproof_core PUBLIC DISKPROOF_HAVE_BPF=1)
  target_link_libraries(diskproof_core PUBLIC PkgConfig::LIBBPF)
  message(STATUS "BPF tracing built: ${DP_BPF_CLANG}, ${DP_BPFTOOL}, libbpf ${LIBBPF_VERSION}")
endif()
