# What the runtime and its tools build with: nlohmann-json (Debian's
# package, or the header alone where no package is installed: give its
# directory as TRANSFUSE_NLOHMANN_JSON_INCLUDE), OpenMP and threads.
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  find_path(TRANSFUSE_NLOHMANN_JSON_INCLUDE nlohmann/json.hpp REQUIRED)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${TRANSFUSE_NLOHMANN_JSON_INCLUDE}")
endif()
find_package(OpenMP REQUIRED)
find_package(Threads REQUIRED)
