# The libraries for other projects: static libraries, an exported CMake
# package (find_package(etkit CONFIG) -> etkit::core, etkit::runner) and a
# pkg-config file. Tools, man pages and completions: cmake/ToolDocs.cmake;
# headers and schemas: next to their targets.
include(CMakePackageConfigHelpers)

set(ETKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/etkit)

install(TARGETS etkit_schemas etkit_core etkit_runner EXPORT etkitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT etkitTargets NAMESPACE etkit:: DESTINATION ${ETKIT_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/etkitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/etkitConfig.cmake
                              INSTALL_DESTINATION ${ETKIT_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/etkitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/etkitConfig.cmake ${PROJECT_BINARY_DIR}/etkitConfigVersion.cmake
        DESTINATION ${ETKIT_CMAKE_DIR})

# The .pc file finds its prefix from its own location, so the tree can be
# installed anywhere (cmake --install --prefix, or a package).
file(RELATIVE_PATH ETKIT_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" ETKIT_PC_TO_PREFIX "${ETKIT_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/etkit.pc.in ${PROJECT_BINARY_DIR}/etkit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/etkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
