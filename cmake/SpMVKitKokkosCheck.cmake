# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# spmvkit_check_kokkos(<output variable> [DEVICES <backend>...] [OPTIONS <option>...]): whether
# the Kokkos just found (its Kokkos_VERSION, Kokkos_DEVICES, Kokkos_OPTIONS, Kokkos_CXX_STANDARD
# and the target Kokkos::kokkoscore) gives what SpMVKit needs. Sets <output variable> to "" when
# it does, else to one sentence per missing thing, naming it:
#  - Kokkos 3.4.01 or newer (the oldest Kokkos SpMVKit builds against);
#  - C++17 or newer: Kokkos_CXX_STANDARD where the Kokkos config sets it (Kokkos 4), else the
#    cxx_std_<NN> compile feature or -std=c++<NN> option of Kokkos::kokkoscore (Kokkos 3, which
#    also builds as C++14); a Kokkos that states neither passes;
#  - every backend after DEVICES (the ones SpMVKit was built with, for the package config) and
#    every option after OPTIONS (CUDA_LAMBDA for SpMVKit's own tests on a Kokkos 3 with CUDA),
#    through Kokkos' own kokkos_check() where its config defines it, else against Kokkos_DEVICES
#    and Kokkos_OPTIONS (case-insensitive, as kokkos_check does).
# Used by SpMVKit's CMakeLists.txt (a FATAL_ERROR) and installed beside SpMVKitConfig.cmake, which
# reports the sentence as the reason SpMVKit is not found.
function(spmvkit_check_kokkos out_var)
  cmake_parse_arguments(PARSE_ARGV 1 _spmvkit_arg "" "" "DEVICES;OPTIONS")
  set(problems "")

  if(NOT DEFINED Kokkos_VERSION OR "${Kokkos_VERSION}" STREQUAL "")
    string(APPEND problems "The Kokkos in ${Kokkos_DIR} does not say its version (Kokkos_VERSION); "
                           "SpMVKit needs Kokkos 3.4.01 or newer. ")
  elseif(Kokkos_VERSION VERSION_LESS 3.4.1)
    string(APPEND problems "SpMVKit needs Kokkos 3.4.01 or newer; the Kokkos in ${Kokkos_DIR} is "
                           "${Kokkos_VERSION}. ")
  endif()

  # The C++ standard Kokkos was built with: 17, 20, ... (or 1z, 2a: the names before the number).
  set(standard "")
  set(standard_source "")
  if(DEFINED Kokkos_CXX_STANDARD AND NOT "${Kokkos_CXX_STANDARD}" STREQUAL "")
    set(standard "${Kokkos_CXX_STANDARD}")
    set(standard_source "Kokkos_CXX_STANDARD")
  else()
    foreach(target IN ITEMS Kokkos::kokkoscore Kokkos::kokkos)
      if(standard STREQUAL "" AND TARGET ${target})
        get_target_property(features ${target} INTERFACE_COMPILE_FEATURES)
        get_target_property(options ${target} INTERFACE_COMPILE_OPTIONS)
        if("${features}" MATCHES "cxx_std_([0-9]+)")
          set(standard "${CMAKE_MATCH_1}")
          set(standard_source "the compile feature cxx_std_${CMAKE_MATCH_1} of ${target}")
        elseif("${options}" MATCHES "std=(c|gnu)\\+\\+([0-9][0-9a-z])")
          set(standard "${CMAKE_MATCH_2}")
          set(standard_source "the option -std=${CMAKE_MATCH_1}++${CMAKE_MATCH_2} of ${target}")
        endif()
      endif()
    endforeach()
  endif()
  string(REGEX REPLACE "^(c|gnu)\\+\\+" "" standard "${standard}")
  if(standard MATCHES "^(98|03|0x|11|1y|14)$")
    string(APPEND problems "SpMVKit needs C++17 or newer; the Kokkos in ${Kokkos_DIR} was built as "
                           "C++${standard} (${standard_source}). Rebuild Kokkos with "
                           "-DCMAKE_CXX_STANDARD=17 (Kokkos 3: or -DKokkos_CXX_STANDARD=17). ")
  endif()

  # Backends (devices) and options, by kokkos_check where there is one.
  foreach(kind IN ITEMS DEVICES OPTIONS)
    if(NOT _spmvkit_arg_${kind})
      continue()
    endif()
    set(missing "")
    foreach(requested IN LISTS _spmvkit_arg_${kind})
      string(TOUPPER "${requested}" requested_uc)
      set(provided_uc "")
      foreach(provided IN LISTS Kokkos_${kind})
        string(TOUPPER "${provided}" provided)
        list(APPEND provided_uc "${provided}")
      endforeach()
      list(FIND provided_uc "${requested_uc}" at)
      if(at EQUAL -1)
        list(APPEND missing "${requested}")
      endif()
    endforeach()
    if(COMMAND kokkos_check)
      # kokkos_check reports through find_package_handle_standard_args, which warns when called
      # inside another package's find_package (here SpMVKit's) under a name of its own.
      unset(CMAKE_FIND_PACKAGE_NAME)
      kokkos_check(${kind} ${_spmvkit_arg_${kind}} RETURN_VALUE provides)
      if(NOT provides AND missing STREQUAL "")
        set(missing "${_spmvkit_arg_${kind}}")
      elseif(provides)
        set(missing "")
      endif()
    endif()
    if(NOT missing STREQUAL "")
      set(flags "")
      foreach(item IN LISTS missing)
        string(TOUPPER "${item}" item)
        string(APPEND flags " -DKokkos_ENABLE_${item}=ON")
      endforeach()
      string(REPLACE ";" ", " missing "${missing}")
      string(REPLACE ";" ", " have "${Kokkos_${kind}}")
      if(have STREQUAL "")
        set(have "none")
      endif()
      if(kind STREQUAL "DEVICES")
        set(what "backend(s)")
      else()
        set(what "option(s)")
      endif()
      string(APPEND problems "SpMVKit needs the Kokkos ${what} ${missing}, which the Kokkos in "
                             "${Kokkos_DIR} was not built with (Kokkos_${kind}: ${have}; Kokkos "
                             "configure option${flags}). ")
    endif()
  endforeach()

  string(STRIP "${problems}" problems)
  set(${out_var} "${problems}" PARENT_SCOPE)
endfunction()
