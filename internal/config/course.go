package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// StateKey is the key of the course state file that holds the SageMaker
// endpoint name.
const StateKey = "endpoint_name"

// deployHint says who writes the state file, for errors about it.
const deployHint = "the course's deploy step writes it when it creates the SageMaker endpoint"

// Course is one course folder: courses/NAME/ by default, holding the
// deployment's state in data/state.json and receiving results in data/.
type Course struct {
	// Name is the course name as given to --course.
	Name string
	// Dir is the course folder.
	Dir string
}

// DataDir is the course's data folder: deployment state and results.
func (c Course) DataDir() string { return filepath.Join(c.Dir, "data") }

// StatePath is the deployment state file that carries endpoint_name.
func (c Course) StatePath() string { return filepath.Join(c.DataDir(), "state.json") }

// CourseDir is the folder of course name under template (a courses_dir
// value: a path containing CoursePlaceholder, or a parent folder). A
// relative template is taken relative to base, the configuration file's
// folder.
func CourseDir(template, base, name string) string {
	var dir string
	if strings.Contains(template, CoursePlaceholder) {
		dir = strings.ReplaceAll(template, CoursePlaceholder, name)
	} else {
		dir = filepath.Join(template, name)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	return filepath.Clean(dir)
}

// FindCourse returns course name, checking that its folder exists. The
// error for a missing folder lists the courses that do exist.
func FindCourse(template, base, name string) (Course, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return Course{}, fmt.Errorf("--course %q: want a course folder name such as classification", name)
	}
	c := Course{Name: name, Dir: CourseDir(template, base, name)}
	st, err := os.Stat(c.Dir)
	switch {
	case err == nil && st.IsDir():
		return c, nil
	case err == nil:
		return Course{}, fmt.Errorf("course %q: %s is not a folder", name, c.Dir)
	case !errors.Is(err, fs.ErrNotExist):
		return Course{}, fmt.Errorf("course %q: %w", name, err)
	}
	msg := fmt.Sprintf("course %q not found: no folder %s", name, c.Dir)
	if known := Courses(template, base); len(known) > 0 {
		msg += " (courses: " + strings.Join(known, ", ") + ")"
	} else {
		msg += fmt.Sprintf(" (courses_dir is %q; run from the project root or pass --config)", template)
	}
	return Course{}, errors.New(msg)
}

// Courses lists the names of the course folders that exist under template,
// sorted; nil when none can be found.
func Courses(template, base string) []string {
	const marker = "\x00"
	pattern := CourseDir(template, base, marker)
	// A glob finds candidates; the regexp recovers the name from each.
	glob := strings.ReplaceAll(globEscape(pattern), marker, "*")
	re, err := regexp.Compile("^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), marker, `([^/\\]+)`) + "$")
	if err != nil {
		return nil
	}
	matches, _ := filepath.Glob(glob)
	var names []string
	for _, m := range matches {
		sub := re.FindStringSubmatch(m)
		if sub == nil || strings.HasPrefix(sub[1], ".") {
			continue
		}
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			names = append(names, sub[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// globEscape escapes the glob metacharacters of a literal path.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) && r != filepath.Separator {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Region reads the AWS region the deployment recorded in the course's
// state file ("region"); "" when the file has none (the run then takes
// the usual --region, AWS_REGION, profile chain).
func (c Course) Region() string {
	data, err := os.ReadFile(c.StatePath())
	if err != nil {
		return ""
	}
	var state struct {
		Region string `json:"region"`
	}
	if json.Unmarshal(data, &state) != nil {
		return ""
	}
	return strings.TrimSpace(state.Region)
}

// EndpointName reads the endpoint name the deployment recorded in the
// course's state file. Each way it can be missing has its own message:
// no state file (not deployed yet), no or an empty endpoint_name, a file
// that is not a JSON object.
func (c Course) EndpointName() (string, error) {
	path := c.StatePath()
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("course %q has no state file %s: deploy the course first (%s), or pass --endpoint-name", c.Name, path, deployHint)
		}
		return "", fmt.Errorf("course %q: reading its state file: %w", c.Name, err)
	}
	var state map[string]json.RawMessage
	if err := json.Unmarshal(data, &state); err != nil {
		return "", fmt.Errorf("course %q: state file %s is not a JSON object: %v", c.Name, path, err)
	}
	raw, ok := state[StateKey]
	if !ok {
		return "", fmt.Errorf("course %q: state file %s has no %s (%s); deploy the course, or pass --endpoint-name", c.Name, path, StateKey, deployHint)
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", fmt.Errorf("course %q: state file %s: %s is not a string", c.Name, path, StateKey)
	}
	if strings.TrimSpace(name) == "" {
		return "", fmt.Errorf("course %q: state file %s has an empty %s (%s); deploy the course, or pass --endpoint-name", c.Name, path, StateKey, deployHint)
	}
	return strings.TrimSpace(name), nil
}

// Open loads the configuration file at path ("" = none) and, when asked
// (findCourse), finds course name: under the file's courses_dir beside it,
// else under DefaultCoursesDir in the working directory. nil for none.
func Open(path string, schema Schema, findCourse bool, course string) (*File, *Course, error) {
	var file *File
	template, base := DefaultCoursesDir, "."
	if path != "" {
		f, err := Load(path, schema)
		if err != nil {
			return nil, nil, err
		}
		file, template, base = f, f.CoursesDir, f.Dir
	}
	if !findCourse {
		return file, nil, nil
	}
	c, err := FindCourse(template, base, course)
	if err != nil {
		return nil, nil, err
	}
	return file, &c, nil
}
