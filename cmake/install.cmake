# Install rules, the exported CMake package, the pkg-config file and the Debian package.
#
# `cmake --install build [--prefix P]` installs the public headers, every layer's library
# (static by default, shared with -DBUILD_SHARED_LIBS=ON), the `mongostore` tool and, under
# lib/systemd/system, a unit that runs `mongostore serve` (not enabled by anything).
# Consumers: find_package(mongostore CONFIG REQUIRED) + mongostore::mongostore, or
# `pkg-config --cflags --libs mongostore`; see README.md "Using mongostore from your project".
include(CMakePackageConfigHelpers)

set(MONGOSTORE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mongostore)

install(TARGETS ${MONGOSTORE_COMPONENTS} mongostore_lib
        EXPORT mongostoreTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mongostore_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/mongostore DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/mongostore/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mongostore)

install(EXPORT mongostoreTargets NAMESPACE mongostore:: DESTINATION ${MONGOSTORE_CMAKE_DIR})
configure_package_config_file(cmake/mongostoreConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mongostoreConfig.cmake INSTALL_DESTINATION ${MONGOSTORE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mongostoreConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mongostoreConfig.cmake
              ${PROJECT_BINARY_DIR}/mongostoreConfigVersion.cmake
        DESTINATION ${MONGOSTORE_CMAKE_DIR})

# pkg-config: relocatable (the prefix is found from the .pc file's own place), so a package
# unpacked anywhere (dpkg -x) or installed with --prefix works without editing it.
file(RELATIVE_PATH MONGOSTORE_PC_TO_PREFIX
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(packaging/mongostore.pc.in ${PROJECT_BINARY_DIR}/mongostore.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mongostore.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The unit names the tool by its absolute path, known only at install time (cpack installs into
# /usr, a plain install into CMAKE_INSTALL_PREFIX), so it is written then, into a directory of
# the build tree named after the destination: cpack and a plain install of one build tree may
# run at once (the packaging tests do), and one shared file let an install ship the unit the
# other had just written, naming the other's path.
install(CODE "
  set(MONGOSTORE_BINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  string(MD5 mongostore_destination \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(mongostore_unit \"${PROJECT_BINARY_DIR}/unit/\${mongostore_destination}/mongostore.service\")
  configure_file(\"${PROJECT_SOURCE_DIR}/packaging/mongostore.service.in\"
                 \"\${mongostore_unit}\" @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\" TYPE FILE
       FILES \"\${mongostore_unit}\")")

# --- the Debian package: `cpack -G DEB` in the build directory ------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mongostore)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "mongostore developers <mongostore@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "durable MongoDB-backed stores for C++ programs: library, headers and the mongostore tool")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # the tool; static archives keep their symbols
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
# The tool's shared libraries (among them libcpp-httplib0.11, the HTTP server of `mongostore
# optimade`) are found by dpkg-shlibdeps; the static libraries need their
# dependencies' development packages to link a program, so the package depends on those too.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libmongoc-dev, libbson-dev, libwiredtiger-dev, libpcre2-dev, libzstd-dev, libsnappy-dev, zlib1g-dev, libgmp-dev, libssl-dev, libicu-dev, libfmt-dev, pkg-config")
include(CPack)
