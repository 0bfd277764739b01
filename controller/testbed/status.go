package testbed

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"graphcc/controller"
	"graphcc/controller/lab"
)

// WriteStatus writes the status of the lab name in dir ("" for
// lab.DefaultDir) to w as graphcc testbed status shows it: its switches,
// ports and settings (lab.Status.WriteText), then its last control step
// (controller.ReadLastStep, LastStep.WriteText) or a line saying there is
// none yet. Without such a lab it fails, naming the command that starts
// one, so that a script can ask whether a lab is up.
func WriteStatus(w io.Writer, name, dir string) error {
	st, err := lab.ReadStatus(name, dir)
	if errors.Is(err, fs.ErrNotExist) {
		where, up := "", "graphcc testbed up --lab "+name
		if dir != "" {
			where, up = " in "+dir, up+" --dir "+dir
		}
		return fmt.Errorf("no lab %q is up%s (%s starts one)", name, where, up)
	}
	if err != nil {
		return err
	}
	if err := st.WriteText(w); err != nil {
		return err
	}
	last, err := controller.ReadLastStep(labDir(name, dir))
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(w, "\nno control step yet: the switches hold the static settings of up")
		return nil
	}
	if err != nil {
		return err
	}
	return last.WriteText(w)
}
