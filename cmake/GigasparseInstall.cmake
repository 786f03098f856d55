# cmake/GigasparseInstall.cmake: installs the library as a CMake package (gigasparse::gigasparse).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS gigasparse gigasparse_warnings EXPORT gigasparseTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/gigasparse DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/gigasparse/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gigasparse)
if(TARGET gigasparse_cli)
  install(TARGETS gigasparse_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT gigasparseTargets NAMESPACE gigasparse:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gigasparse)
configure_package_config_file(cmake/gigasparseConfig.cmake.in ${PROJECT_BINARY_DIR}/gigasparseConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gigasparse)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gigasparseConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gigasparseConfig.cmake ${PROJECT_BINARY_DIR}/gigasparseConfigVersion.cmake
              cmake/GigasparseDependencies.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gigasparse)
